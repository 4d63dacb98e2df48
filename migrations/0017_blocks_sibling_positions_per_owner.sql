-- Where a new block goes among its siblings is read from the siblings the writer sees (their own
-- and shared ones: services/blocks/positions.ts), not from every user's: a top-level block's
-- position would otherwise tell how many blocks other users made. Each side of that visibility
-- rule is a seek on this index to the last (or next) position of one owner under one parent,
-- as blocks_parent_position_idx gave for all owners at once. Written by hand, like 0013; the index
-- is declared in src/db/schema.ts.
CREATE INDEX `blocks_parent_owner_position_idx` ON `blocks` (`parent_id`, `created_by`, `position`);
