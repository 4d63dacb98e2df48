import type { RawRow } from "../../db/rows";
import type { changeEvents } from "../../db/schema";
import type { Block } from "../../schemas/blocks";
import type { BlockVersion, ChangeEvent, ChangeEventType } from "../../schemas/changes";

// Events as the triggers of migrations/0021_change_log.sql wrote them, turned into what the feed and a
// block's history answer.

export type { BlockVersion, ChangeEvent, ChangeEventType };

/** A `change_events` row as D1 returns it (`changed_fields` and `data` as JSON text). */
export type ChangeEventRecord = RawRow<typeof changeEvents, { type: ChangeEventType }>;

/** How long events are kept: the feed's window, and how far back a block's history goes. */
export const CHANGE_RETENTION_DAYS = 30;

const parsed = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

export const presentChangeEvent = (record: ChangeEventRecord): ChangeEvent => ({
  id: record.id,
  type: record.type,
  object_id: record.object_id,
  occurred_at: record.occurred_at,
  actor_id: record.actor_id,
  request_id: record.request_id,
  changed_fields: parsed<string[]>(record.changed_fields),
  data: parsed<ChangeEvent["data"]>(record.data),
});

/** The block an event of a block version (`block.created`, `block.updated`) holds. */
export const versionedBlock = (record: ChangeEventRecord): Block => parsed<Block>(record.data) as Block;

export const presentBlockVersion = (record: ChangeEventRecord): BlockVersion => {
  const block = versionedBlock(record);
  return {
    event_id: record.id,
    type: record.type as BlockVersion["type"],
    occurred_at: record.occurred_at,
    actor_id: record.actor_id,
    changed_fields: parsed<string[]>(record.changed_fields),
    block_type: block.type,
    properties: block.properties,
    content: block.content,
  };
};
