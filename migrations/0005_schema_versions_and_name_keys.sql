-- Databases carry a schema version (row and view writes apply only against the version they
-- were validated with); views carry their own version; property names are unique per database
-- whatever their case, enforced by a case-folded key; a database's rows have an index in their
-- default order (exports read it by keyset).
ALTER TABLE `blocks` ADD `schema_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `blocks_database_position_idx` ON `blocks` (`database_id`,`position`);--> statement-breakpoint
ALTER TABLE `database_properties` ADD `name_key` text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Existing names fold with SQLite's lower() (ASCII); a name that already collides with an earlier
-- one of its database keeps a key of its own, so the unique index can be built over old data.
UPDATE `database_properties` SET `name_key` = lower(`name`) || CASE WHEN EXISTS (
  SELECT 1 FROM `database_properties` AS `earlier`
  WHERE `earlier`.`database_id` = `database_properties`.`database_id`
    AND lower(`earlier`.`name`) = lower(`database_properties`.`name`)
    AND `earlier`.`rowid` < `database_properties`.`rowid`
) THEN char(0) || `id` ELSE '' END;--> statement-breakpoint
CREATE UNIQUE INDEX `database_properties_name_key_idx` ON `database_properties` (`database_id`,`name_key`);--> statement-breakpoint
ALTER TABLE `database_views` ADD `version` integer DEFAULT 0 NOT NULL;
