-- A row whose owner is not its database's (a shared row, seen by every user, moved into a private
-- database; another user's copy of such a row) that a schema change of that database rewrites (an
-- option renamed or removed, a property removed) is logged as a `block.updated` of its own. Until
-- now every row such a change rewrote was covered by the change's one `database.schema_updated`,
-- whose owner is the database's: such a row changed for users that event never reaches. The rows
-- owned as the database is, and every row of a shared database (whose event every user sees), are
-- still the one event. Changed from the definition in 0021_change_log.sql: the last condition of WHEN only;
-- the body is the same. Written by hand, like 0021: Drizzle cannot declare a trigger. Relied on by
-- the change feed and webhooks (services/change-log, services/webhooks).
DROP TRIGGER `change_events_block_update`;
--> statement-breakpoint
CREATE TRIGGER `change_events_block_update`
AFTER UPDATE OF type, parent_id, database_id, teamspace_id, properties, content, position, archived, in_trash ON `blocks`
WHEN NEW.type <> 'provider_audit_log'
	AND (OLD.type IS NOT NEW.type OR OLD.parent_id IS NOT NEW.parent_id OR OLD.database_id IS NOT NEW.database_id
		OR OLD.teamspace_id IS NOT NEW.teamspace_id OR OLD.properties IS NOT NEW.properties
		OR OLD.content IS NOT NEW.content OR OLD.position IS NOT NEW.position OR OLD.archived IS NOT NEW.archived
		OR OLD.in_trash IS NOT NEW.in_trash)
	AND NOT coalesce(NEW.database_id = (SELECT w.schema_rows_of FROM `write_context` w WHERE w.id = 1)
		AND (SELECT d.created_by IS NULL OR d.created_by IS NEW.created_by FROM `blocks` d WHERE d.id = NEW.database_id), 0) BEGIN
	INSERT INTO `change_events` (type, object_id, owner_id, actor_id, request_id, occurred_at, changed_fields, data)
	SELECT 'block.updated', NEW.id, NEW.created_by, w.actor_id, w.request_id, w.occurred_at,
		'[' || rtrim(
			CASE WHEN OLD.type IS NOT NEW.type THEN '"type",' ELSE '' END ||
			CASE WHEN OLD.parent_id IS NOT NEW.parent_id THEN '"parent_id",' ELSE '' END ||
			CASE WHEN OLD.database_id IS NOT NEW.database_id THEN '"database_id",' ELSE '' END ||
			CASE WHEN OLD.teamspace_id IS NOT NEW.teamspace_id THEN '"teamspace_id",' ELSE '' END ||
			CASE WHEN OLD.properties IS NOT NEW.properties THEN '"properties",' ELSE '' END ||
			CASE WHEN OLD.content IS NOT NEW.content THEN '"content",' ELSE '' END ||
			CASE WHEN OLD.position IS NOT NEW.position THEN '"position",' ELSE '' END ||
			CASE WHEN OLD.archived IS NOT NEW.archived THEN '"archived",' ELSE '' END ||
			CASE WHEN OLD.in_trash IS NOT NEW.in_trash THEN '"in_trash",' ELSE '' END, ',') || ']',
		(SELECT d.data FROM `change_block_data` d WHERE d.seq = NEW.seq)
	FROM `change_writer` w;
END;
