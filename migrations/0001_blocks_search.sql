-- Full-text index over the searchable text of blocks (titles, property values,
-- editor content). Drizzle cannot express FTS5, so this migration is written by hand.
-- Rows are keyed by blocks.seq (an INTEGER PRIMARY KEY, so stable across VACUUM).
CREATE VIRTUAL TABLE `blocks_search` USING fts5(
	title,
	body,
	tokenize = 'porter unicode61 remove_diacritics 2'
);
--> statement-breakpoint
-- The searchable text of each block, defined once for both triggers.
-- Title: every string under properties.title (plain string or rich-text shapes).
-- Body: the other string values of properties (minus presentation keys) and the
-- `text`/`caption`/`title` strings of the editor content.
CREATE VIEW `blocks_search_source` AS
SELECT
	b.seq AS seq,
	(SELECT group_concat(value, ' ') FROM json_tree(b.properties, '$.title') WHERE type = 'text') AS title,
	(SELECT group_concat(value, ' ') FROM (
		SELECT value FROM json_tree(b.properties)
		WHERE type = 'text'
			AND fullkey <> '$.title' AND fullkey NOT LIKE '$.title.%' AND fullkey NOT LIKE '$.title[%'
			AND key NOT IN ('color', 'icon', 'cover', 'id', 'url', 'type')
		UNION ALL
		SELECT value FROM json_tree(coalesce(b.content, 'null'))
		WHERE type = 'text' AND key IN ('text', 'caption', 'title')
	)) AS body
FROM blocks b;
--> statement-breakpoint
CREATE TRIGGER `blocks_search_insert` AFTER INSERT ON `blocks` BEGIN
	INSERT INTO `blocks_search` (rowid, title, body)
	SELECT seq, title, body FROM `blocks_search_source` WHERE seq = new.seq;
END;
--> statement-breakpoint
CREATE TRIGGER `blocks_search_delete` AFTER DELETE ON `blocks` BEGIN
	DELETE FROM `blocks_search` WHERE rowid = old.seq;
END;
--> statement-breakpoint
CREATE TRIGGER `blocks_search_update` AFTER UPDATE OF properties, content ON `blocks` BEGIN
	DELETE FROM `blocks_search` WHERE rowid = old.seq;
	INSERT INTO `blocks_search` (rowid, title, body)
	SELECT seq, title, body FROM `blocks_search_source` WHERE seq = new.seq;
END;
