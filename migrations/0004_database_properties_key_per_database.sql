-- Property ids become unique per database rather than globally (a duplicated database keeps
-- its ids; older inline schemas may reuse ids across databases). SQLite cannot change a
-- primary key in place, so the table is rebuilt; D1 defers, rather than disables, FK checks.
PRAGMA defer_foreign_keys = on;--> statement-breakpoint
CREATE TABLE `__new_database_properties` (
	`id` text NOT NULL,
	`database_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`options` text DEFAULT '[]' NOT NULL,
	`position` integer NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	PRIMARY KEY(`database_id`, `id`),
	FOREIGN KEY (`database_id`) REFERENCES `blocks`(`id`) ON UPDATE cascade ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_database_properties`("id", "database_id", "name", "type", "options", "position", "created_at", "updated_at") SELECT "id", "database_id", "name", "type", "options", "position", "created_at", "updated_at" FROM `database_properties`;--> statement-breakpoint
DROP TABLE `database_properties`;--> statement-breakpoint
ALTER TABLE `__new_database_properties` RENAME TO `database_properties`;--> statement-breakpoint
PRAGMA defer_foreign_keys = off;--> statement-breakpoint
CREATE UNIQUE INDEX `database_properties_name_idx` ON `database_properties` (`database_id`,`name`);--> statement-breakpoint
CREATE INDEX `database_properties_position_idx` ON `database_properties` (`database_id`,`position`);