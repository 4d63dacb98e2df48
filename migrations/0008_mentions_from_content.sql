-- Mentions held by a block's content, kept in step with every write of it: the
-- triggers below replace a block's `origin = 'content'` mentions in the same
-- statement that writes its content, whichever path writes it (create, update, PUT,
-- markdown, duplicate, synced-block propagation). Written by hand: Drizzle cannot
-- express triggers. Mentions made through the API (`origin = 'api'`) are left alone.
--
-- The view reads, for every block, each inline mention span
-- (`{text, mention: {type, id}}`) and each link (`{text, link}`) in its content.
-- A link counts as a reference to the page whose id is its last path segment
-- (`/pages/<id>`, `https://host/p/<id>?x`, or the bare id): backlinks match it by id,
-- so a link to anything else simply matches no page. The snippet is the mention's
-- text with up to 80 characters of the spans on either side. At most 1,000 per block.
CREATE VIEW `block_mentions_source` AS
SELECT
	m.block_id,
	m.target_type,
	m.target_id,
	m.kind,
	substr(trim(
		coalesce(CASE WHEN m.span_index > 0
			THEN substr(json_extract(m.content, m.span_array || (m.span_index - 1) || '].text'), -80) END, '') ||
		coalesce(json_extract(m.content, m.span_path || '.text'), '') ||
		coalesce(substr(json_extract(m.content, m.span_array || (m.span_index + 1) || '].text'), 1, 80), '')
	), 1, 300) AS snippet,
	m.created_by,
	m.created_at
FROM (
	SELECT
		s.block_id, s.content, s.target_type, s.target_id, s.kind, s.span_path, s.created_by, s.created_at,
		-- `$[0].children[3]` → `$[0].children[` and 3: the span's siblings are read by index
		-- (null for a span that is not in an array: no siblings).
		CASE WHEN s.span_path LIKE '%]' THEN rtrim(s.span_path, '0123456789]') END AS span_array,
		CASE WHEN s.span_path LIKE '%]'
			THEN CAST(substr(s.span_path, length(rtrim(s.span_path, '0123456789]')) + 1) AS INTEGER) END AS span_index
	FROM (
		SELECT b.id AS block_id, b.content, t.path AS span_path,
			coalesce(b.last_edited_by, b.created_by) AS created_by, b.updated_at AS created_at,
			CASE t.key WHEN 'mention' THEN json_extract(t.value, '$.type') ELSE 'page' END AS target_type,
			CASE t.key
				WHEN 'mention' THEN json_extract(t.value, '$.id')
				-- The last path segment, without query, fragment or trailing slashes.
				ELSE (SELECT replace(u.v, rtrim(u.v, replace(u.v, '/', '')), '') FROM (SELECT rtrim(
					CASE WHEN instr(q.v, '#') > 0 THEN substr(q.v, 1, instr(q.v, '#') - 1) ELSE q.v END, '/') AS v
					FROM (SELECT CASE WHEN instr(t.atom, '?') > 0 THEN substr(t.atom, 1, instr(t.atom, '?') - 1)
						ELSE t.atom END AS v) q) u)
			END AS target_id,
			CASE t.key WHEN 'mention' THEN 'mention' ELSE 'link' END AS kind
		FROM blocks b, json_tree(CASE WHEN json_valid(b.content) THEN b.content ELSE 'null' END) t
		WHERE (t.key = 'mention' AND t.type = 'object')
			-- A span that mentions is not also a link (as the API normalises it).
			OR (t.key = 'link' AND t.type = 'text' AND t.atom NOT LIKE 'mention:%'
				AND json_type(b.content, t.path || '.mention') IS NULL)
	) s
) m
WHERE m.target_type IN ('page', 'block', 'user', 'date')
	AND typeof(m.target_id) = 'text' AND m.target_id <> '' AND length(m.target_id) <= 200
	-- Content of editor blocks is not validated as page bodies are: a date must still look like one.
	AND (m.target_type <> 'date' OR m.target_id GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*');
--> statement-breakpoint
CREATE TRIGGER `blocks_mentions_insert` AFTER INSERT ON `blocks` WHEN NEW.content IS NOT NULL BEGIN
	INSERT INTO `mentions` (id, block_id, target_type, target_id, kind, origin, snippet, created_by, created_at)
	SELECT lower(hex(randomblob(16))), block_id, target_type, target_id, kind, 'content', snippet, created_by, created_at
	FROM `block_mentions_source` WHERE block_id = NEW.id LIMIT 1000;
END;
--> statement-breakpoint
CREATE TRIGGER `blocks_mentions_update` AFTER UPDATE OF content ON `blocks` BEGIN
	DELETE FROM `mentions` WHERE block_id = NEW.id AND origin = 'content';
	INSERT INTO `mentions` (id, block_id, target_type, target_id, kind, origin, snippet, created_by, created_at)
	SELECT lower(hex(randomblob(16))), block_id, target_type, target_id, kind, 'content', snippet, created_by, created_at
	FROM `block_mentions_source` WHERE block_id = NEW.id LIMIT 1000;
END;
--> statement-breakpoint
-- The mentions and links content already holds (at most 1,000 per block, as the triggers keep).
INSERT INTO `mentions` (id, block_id, target_type, target_id, kind, origin, snippet, created_by, created_at)
SELECT lower(hex(randomblob(16))), block_id, target_type, target_id, kind, 'content', snippet, created_by, created_at
FROM (SELECT *, row_number() OVER (PARTITION BY block_id) AS n FROM `block_mentions_source`)
WHERE n <= 1000;
