-- A block's version: the validator of its entity tag (RFC 9110 §8.8.3). Every write of a block
-- gives it a new version, so a strong ETag names one representation, and a write carrying
-- `If-Match` applies only while the version it names holds (`... WHERE b.version = ?`, inside the
-- write: services/blocks/commands.ts). `updated_at` could not serve: two writes within one
-- millisecond leave it alike, and writes that change a row without editing it (a schema change
-- rewriting its values, a delete detaching it) leave it as it was.
--
-- The writes that answer the block bump the version themselves (`version = version + 1`, which
-- RETURNING shows). The trigger bumps it for every other write of the table, whichever path
-- writes: it fires only when the write left the version as it was, so a write that bumped it
-- costs nothing more. Drizzle cannot declare triggers; the column is declared in src/db/schema.ts.
ALTER TABLE `blocks` ADD `version` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE TRIGGER `blocks_version_update` AFTER UPDATE ON `blocks` WHEN NEW.version = OLD.version BEGIN
  UPDATE `blocks` SET `version` = OLD.version + 1 WHERE `seq` = NEW.seq;
END;
