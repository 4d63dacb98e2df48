-- The outbox trigger of 0022_webhooks found an event's endpoints with `owner IS NULL OR user_id =
-- owner`, which SQLite cannot answer from an index: every change event scanned every webhook
-- endpoint of every user. Split by whose the event is: an owned object's event seeks its owner's
-- endpoints (`webhook_endpoints_user_idx`); a shared object's (no owner, visible to every user)
-- goes to every enabled endpoint, as before. The condition on the owner alone is evaluated once,
-- before SQLite reads a row, so each event runs one of the two statements. What it writes is the
-- same: one pending delivery per enabled endpoint that may see the event, in the event's statement.
DROP TRIGGER `webhook_deliveries_from_events`;
--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_from_events` AFTER INSERT ON `change_events` BEGIN
	INSERT INTO `webhook_deliveries` (endpoint_id, event_id, event_type, request_id, status, attempts, created_at, next_attempt_at)
	SELECT e.id, NEW.id, NEW.type, NEW.request_id, 'pending', 0, NEW.occurred_at, NEW.occurred_at
	FROM `webhook_endpoints` e
	WHERE e.user_id = NEW.owner_id AND e.enabled = 1
		AND (e.event_types IS NULL OR EXISTS (SELECT 1 FROM json_each(e.event_types) t WHERE t.value = NEW.type))
	ORDER BY e.id;
	INSERT INTO `webhook_deliveries` (endpoint_id, event_id, event_type, request_id, status, attempts, created_at, next_attempt_at)
	SELECT e.id, NEW.id, NEW.type, NEW.request_id, 'pending', 0, NEW.occurred_at, NEW.occurred_at
	FROM `webhook_endpoints` e
	WHERE NEW.owner_id IS NULL AND e.enabled = 1
		AND (e.event_types IS NULL OR EXISTS (SELECT 1 FROM json_each(e.event_types) t WHERE t.value = NEW.type))
	ORDER BY e.id;
END;
