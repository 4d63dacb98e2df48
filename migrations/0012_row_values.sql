-- The row-value index: one entry per database row and property of an indexable type (and one
-- more per further option of a multi-select), holding the value in the forms filters and sorts
-- compare, so a row query walks an index instead of reading every row's JSON. Kept by the
-- triggers below in the same statement as every write that changes what it derives from: a
-- row's insert, update (properties, database, type), move (position) and delete, and a
-- property's insert, retype and delete (option changes rewrite the rows that hold them, and
-- entries derive from the rows' stored values). So it is exact whichever path writes
-- (rows, bulk rows, duplicates, schema changes), under every race the writes themselves survive.
-- Written by hand: Drizzle cannot express triggers, views, expression indexes or WITHOUT ROWID.
--
--   match: what equality and range filters compare: a select's option id, a date's `start` as
--          written, a number, 0/1, the text; a multi-select has one entry per option (ordinal).
--   sort:  what ordering compares (ordinal 0 only): a select's option name, a date's instant
--          (julianday, so offsets order correctly), the multi-select's first option name, else
--          the value itself. NULL when the row has no value.
--   sort_asc: `sort` with NULL written as X'FF' (a blob sorts after every number and text), so an
--          ascending walk puts rows without a value last; a descending one uses `sort` (NULL is
--          the smallest value, so last). Plain columns, no NULL flags: the planner seeks on them.
--   position_key: the row's position (unpositioned rows as the largest float), the tie-break of
--          every sort, then row_seq.
-- `match` and `sort` have no declared type (BLOB affinity): values keep their type, so text that
-- looks like a number ('0123', '+49...', an option named "10") stays text.
-- Keyed by the row's `blocks.seq` first, so a row's entries are rewritten by key.
CREATE TABLE `row_values` (
	`row_seq` integer NOT NULL,
	`property_id` text NOT NULL,
	`ordinal` integer NOT NULL,
	`database_id` text NOT NULL,
	`position_key` real NOT NULL,
	`match`,
	`sort`,
	`sort_asc`,
	PRIMARY KEY (`row_seq`, `property_id`, `ordinal`)
) WITHOUT ROWID;
--> statement-breakpoint
-- Equality and range filters walk this (and a property's entries are found by it).
CREATE INDEX `row_values_match_idx` ON `row_values` (`database_id`, `property_id`, `match`);
--> statement-breakpoint
-- A sorted query walks one of these in its order: values first (NULLS LAST), then position, then seq.
CREATE INDEX `row_values_sort_asc_idx` ON `row_values`
	(`database_id`, `property_id`, `sort_asc`, `position_key`, `row_seq`) WHERE `ordinal` = 0;
--> statement-breakpoint
CREATE INDEX `row_values_sort_desc_idx` ON `row_values`
	(`database_id`, `property_id`, `sort` DESC, `position_key`, `row_seq`) WHERE `ordinal` = 0;
--> statement-breakpoint
-- A database's rows in the default order (position, unpositioned last, then seq: the rowid ends
-- every index), on a generated column so the planner seeks on it as on any column.
ALTER TABLE `blocks` ADD `position_key` real GENERATED ALWAYS AS (coalesce(`position`, 1.7976931348623157e308)) VIRTUAL;
--> statement-breakpoint
CREATE INDEX `blocks_database_order_idx` ON `blocks` (`database_id`, `position_key`);
--> statement-breakpoint
-- The entries each row should have, derived from its properties and its database's schema records.
-- Only databases with schema records are indexed (an older inline schema is queried as before).
CREATE VIEW `row_values_source` AS
SELECT b.seq AS row_seq, p.id AS property_id, 0 AS ordinal, b.database_id, b.position_key,
	CASE
		WHEN p.type IN ('select', 'status') THEN CASE v.type WHEN 'object' THEN json_extract(v.value, '$.id') ELSE v.value END
		WHEN p.type = 'date' THEN CASE v.type WHEN 'object' THEN json_extract(v.value, '$.start') ELSE v.value END
		WHEN p.type = 'multi_select' THEN CASE v.type WHEN 'array' THEN
			CASE json_type(v.value, '$[0]') WHEN 'object' THEN json_extract(v.value, '$[0].id') WHEN 'text' THEN json_extract(v.value, '$[0]') END END
		ELSE v.value
	END AS match,
	CASE
		WHEN p.type IN ('select', 'status') THEN CASE v.type WHEN 'object' THEN json_extract(v.value, '$.name') END
		WHEN p.type = 'date' THEN julianday(CASE v.type WHEN 'object' THEN json_extract(v.value, '$.start') ELSE v.value END)
		WHEN p.type = 'multi_select' THEN CASE v.type WHEN 'array' THEN json_extract(v.value, '$[0].name') END
		ELSE v.value
	END AS sort
FROM blocks b
JOIN database_properties p ON p.database_id = b.database_id
	AND p.type IN ('title', 'text', 'url', 'email', 'phone_number', 'number', 'checkbox', 'select', 'status', 'date', 'multi_select')
LEFT JOIN json_each(CASE WHEN json_valid(b.properties) THEN b.properties ELSE '{}' END) v ON v.key = p.id
WHERE b.type = 'database_row'
UNION ALL
SELECT b.seq, p.id, CAST(e.key AS INTEGER), b.database_id, b.position_key,
	CASE e.type WHEN 'object' THEN json_extract(e.value, '$.id') WHEN 'text' THEN e.value END, NULL
FROM blocks b
JOIN database_properties p ON p.database_id = b.database_id AND p.type = 'multi_select'
JOIN json_each(CASE WHEN json_valid(b.properties) THEN b.properties ELSE '{}' END) v ON v.key = p.id AND v.type = 'array'
JOIN json_each(v.value) e ON e.key > 0
WHERE b.type = 'database_row';
--> statement-breakpoint
CREATE TRIGGER `row_values_row_insert` AFTER INSERT ON `blocks`
WHEN NEW.type = 'database_row' AND NEW.database_id IS NOT NULL BEGIN
	INSERT OR REPLACE INTO `row_values` (row_seq, property_id, ordinal, database_id, position_key, match, sort, sort_asc)
	SELECT row_seq, property_id, ordinal, database_id, position_key, match, sort, coalesce(sort, X'FF') FROM `row_values_source` WHERE row_seq = NEW.seq;
END;
--> statement-breakpoint
CREATE TRIGGER `row_values_row_update` AFTER UPDATE OF database_id, type ON `blocks`
WHEN (OLD.type = 'database_row' OR NEW.type = 'database_row')
	AND (OLD.database_id IS NOT NEW.database_id OR OLD.type IS NOT NEW.type) BEGIN
	DELETE FROM `row_values` WHERE row_seq = OLD.seq;
	INSERT OR REPLACE INTO `row_values` (row_seq, property_id, ordinal, database_id, position_key, match, sort, sort_asc)
	SELECT row_seq, property_id, ordinal, database_id, position_key, match, sort, coalesce(sort, X'FF') FROM `row_values_source`
	WHERE row_seq = NEW.seq;
END;
--> statement-breakpoint
-- A row's values changed (same database): only the properties whose stored value differs are
-- derived again (a schema command rewriting one property of every row touches one entry each).
CREATE TRIGGER `row_values_row_values` AFTER UPDATE OF properties ON `blocks`
WHEN NEW.type = 'database_row' AND OLD.type = 'database_row' AND OLD.database_id IS NEW.database_id
	AND NEW.database_id IS NOT NULL BEGIN
	DELETE FROM `row_values` WHERE row_seq = NEW.seq AND property_id IN (
		SELECT p.id FROM `database_properties` p
		WHERE p.database_id = NEW.database_id
			AND (json_type(OLD.properties, '$."' || replace(replace(p.id, '\', '\\'), '"', '\"') || '"')
					IS NOT json_type(NEW.properties, '$."' || replace(replace(p.id, '\', '\\'), '"', '\"') || '"')
				OR json_extract(OLD.properties, '$."' || replace(replace(p.id, '\', '\\'), '"', '\"') || '"')
					IS NOT json_extract(NEW.properties, '$."' || replace(replace(p.id, '\', '\\'), '"', '\"') || '"')));
	INSERT OR REPLACE INTO `row_values` (row_seq, property_id, ordinal, database_id, position_key, match, sort, sort_asc)
	SELECT row_seq, property_id, ordinal, database_id, position_key, match, sort, coalesce(sort, X'FF') FROM `row_values_source`
	WHERE row_seq = NEW.seq AND property_id IN (
		SELECT p.id FROM `database_properties` p
		WHERE p.database_id = NEW.database_id
			AND (json_type(OLD.properties, '$."' || replace(replace(p.id, '\', '\\'), '"', '\"') || '"')
					IS NOT json_type(NEW.properties, '$."' || replace(replace(p.id, '\', '\\'), '"', '\"') || '"')
				OR json_extract(OLD.properties, '$."' || replace(replace(p.id, '\', '\\'), '"', '\"') || '"')
					IS NOT json_extract(NEW.properties, '$."' || replace(replace(p.id, '\', '\\'), '"', '\"') || '"')));
END;
--> statement-breakpoint
CREATE TRIGGER `row_values_row_move` AFTER UPDATE OF position ON `blocks`
WHEN NEW.type = 'database_row' AND OLD.position IS NOT NEW.position BEGIN
	UPDATE `row_values` SET position_key = NEW.position_key WHERE row_seq = NEW.seq;
END;
--> statement-breakpoint
CREATE TRIGGER `row_values_row_delete` AFTER DELETE ON `blocks` WHEN OLD.type = 'database_row' BEGIN
	DELETE FROM `row_values` WHERE row_seq = OLD.seq;
END;
--> statement-breakpoint
CREATE TRIGGER `row_values_property_insert` AFTER INSERT ON `database_properties` BEGIN
	INSERT OR REPLACE INTO `row_values` (row_seq, property_id, ordinal, database_id, position_key, match, sort, sort_asc)
	SELECT row_seq, property_id, ordinal, database_id, position_key, match, sort, coalesce(sort, X'FF') FROM `row_values_source`
	WHERE database_id = NEW.database_id AND property_id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER `row_values_property_update` AFTER UPDATE OF id, database_id, type ON `database_properties`
WHEN OLD.type IS NOT NEW.type OR OLD.id IS NOT NEW.id OR OLD.database_id IS NOT NEW.database_id BEGIN
	DELETE FROM `row_values` WHERE database_id = OLD.database_id AND property_id = OLD.id;
	INSERT OR REPLACE INTO `row_values` (row_seq, property_id, ordinal, database_id, position_key, match, sort, sort_asc)
	SELECT row_seq, property_id, ordinal, database_id, position_key, match, sort, coalesce(sort, X'FF') FROM `row_values_source`
	WHERE database_id = NEW.database_id AND property_id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER `row_values_property_delete` AFTER DELETE ON `database_properties` BEGIN
	DELETE FROM `row_values` WHERE database_id = OLD.database_id AND property_id = OLD.id;
END;
--> statement-breakpoint
-- The entries of the rows that already exist.
INSERT INTO `row_values` (row_seq, property_id, ordinal, database_id, position_key, match, sort, sort_asc)
SELECT row_seq, property_id, ordinal, database_id, position_key, match, sort, coalesce(sort, X'FF') FROM `row_values_source`;
