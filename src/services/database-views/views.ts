import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { badRequest, notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { visibleTo } from "../blocks/visibility";
import type { DatabaseSchema, PropertyDefinition } from "../databases/property-types";
import { canonicalFilters, canonicalSorts, type RowFilter, type RowSort } from "../databases/row-query";
import { resolvePropertyKey } from "../databases/row-values";
import { loadDatabaseSchema } from "../databases/schema-records";

export const VIEW_TYPES = [
  "table",
  "board",
  "gallery",
  "list",
  "feed",
  "calendar",
  "timeline",
  "chart",
  "dashboard",
  "map",
  "form",
] as const;
export type ViewType = (typeof VIEW_TYPES)[number];
export const TIMELINE_SCALES = ["day", "week", "month"] as const;
export type TimelineScale = (typeof TIMELINE_SCALES)[number];

/** Types a calendar or timeline can be laid out by. */
const DATE_LIKE_TYPES = new Set(["date", "created_time", "last_edited_time"]);

export interface DatabaseView {
  id: string;
  database_id: string;
  name: string;
  view_type: ViewType;
  date_property: string | null;
  start_date_property: string | null;
  end_date_property: string | null;
  timeline_scale: TimelineScale | null;
  filters: RowFilter[];
  sorts: RowSort[];
  visible_properties: string[] | null;
  position: number | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

interface ViewRecord extends Omit<DatabaseView, "filters" | "sorts" | "visible_properties"> {
  filters: string;
  sorts: string;
  visible_properties: string | null;
}

const presentView = (record: ViewRecord): DatabaseView => ({
  ...record,
  filters: JSON.parse(record.filters) as RowFilter[],
  sorts: JSON.parse(record.sorts) as RowSort[],
  visible_properties: record.visible_properties === null ? null : (JSON.parse(record.visible_properties) as string[]),
});

export interface ViewSettings {
  name?: string;
  view_type?: ViewType;
  date_property?: string | null;
  start_date_property?: string | null;
  end_date_property?: string | null;
  timeline_scale?: TimelineScale | null;
  filters?: RowFilter[];
  sorts?: RowSort[];
  visible_properties?: string[] | null;
  position?: number | null;
}

/** A view is visible when the caller sees its database and created it (or it is shared). */
const visibleView = (userId: string): SQL =>
  sql`(v.created_by = ${userId} OR v.created_by IS NULL)
    AND EXISTS (SELECT 1 FROM blocks b WHERE b.id = v.database_id AND ${visibleTo(userId)})`;

const viewNotFound = (id: string) => notFound("View not found", { view_id: id });

function propertyRef(schema: DatabaseSchema, field: string, key: string | null | undefined, dateLike = false) {
  if (key === null || key === undefined) return null;
  const property: PropertyDefinition | undefined = resolvePropertyKey(schema, key);
  if (!property) {
    throw badRequest(`${field} names a property that is not in the database's schema`, {
      field,
      property: key,
      allowed: schema.properties.map((p) => p.name),
    });
  }
  if (dateLike && !DATE_LIKE_TYPES.has(property.type)) {
    throw badRequest(`${field} must be a date property`, { field, property: key, type: property.type });
  }
  return property.id;
}

/**
 * The complete settings of a view, validated against its type and the
 * database's schema, with property references as canonical ids.
 */
function resolveSettings(schema: DatabaseSchema, settings: Required<Omit<ViewSettings, "name" | "position">>) {
  const type = settings.view_type;
  type LayoutField = "date_property" | "start_date_property" | "end_date_property" | "timeline_scale";
  const misplaced = (field: LayoutField, applies: string) => {
    if (settings[field] !== null && settings[field] !== undefined) {
      throw badRequest(`${field} applies to ${applies} views only`, { field, view_type: type });
    }
  };
  if (type !== "calendar") misplaced("date_property", "calendar");
  if (type !== "timeline") {
    misplaced("start_date_property", "timeline");
    misplaced("end_date_property", "timeline");
    misplaced("timeline_scale", "timeline");
  }
  if (type === "calendar" && !settings.date_property) {
    throw badRequest("A calendar view needs date_property", { field: "date_property" });
  }
  if (type === "timeline" && !settings.start_date_property) {
    throw badRequest("A timeline view needs start_date_property", { field: "start_date_property" });
  }
  return {
    date_property: propertyRef(schema, "date_property", settings.date_property, true),
    start_date_property: propertyRef(schema, "start_date_property", settings.start_date_property, true),
    end_date_property: propertyRef(schema, "end_date_property", settings.end_date_property, true),
    timeline_scale: type === "timeline" ? (settings.timeline_scale ?? "week") : null,
    filters: canonicalFilters(schema, settings.filters),
    sorts: canonicalSorts(schema, settings.sorts),
    visible_properties:
      settings.visible_properties === null
        ? null
        : settings.visible_properties.map(
            (key, index) => propertyRef(schema, `visible_properties[${index}]`, key) as string,
          ),
  };
}

export async function listViews(db: Database, userId: string, databaseId: string): Promise<DatabaseView[]> {
  await loadDatabaseSchema(db, userId, databaseId);
  const records = await db.all<ViewRecord>(sql`
    SELECT v.* FROM database_views v WHERE v.database_id = ${databaseId} AND ${visibleView(userId)}
    ORDER BY v.position ASC NULLS LAST, v.created_at ASC`);
  return records.map(presentView);
}

export async function getView(db: Database, userId: string, viewId: string): Promise<DatabaseView> {
  const record = await db.get<ViewRecord | undefined>(
    sql`SELECT v.* FROM database_views v WHERE v.id = ${viewId} AND ${visibleView(userId)}`,
  );
  if (!record) throw viewNotFound(viewId);
  return presentView(record);
}

const defaultName = (type: ViewType) => `${type[0]?.toUpperCase()}${type.slice(1)} view`;

export async function createView(
  db: Database,
  userId: string,
  databaseId: string,
  input: ViewSettings & { view_type: ViewType },
): Promise<DatabaseView> {
  const schema = await loadDatabaseSchema(db, userId, databaseId);
  const resolved = resolveSettings(schema, {
    view_type: input.view_type,
    date_property: input.date_property ?? null,
    start_date_property: input.start_date_property ?? null,
    end_date_property: input.end_date_property ?? null,
    timeline_scale: input.timeline_scale ?? null,
    filters: input.filters ?? [],
    sorts: input.sorts ?? [],
    visible_properties: input.visible_properties ?? null,
  });
  const timestamp = new Date().toISOString();
  const record = await db.get<ViewRecord>(sql`
    INSERT INTO database_views (id, database_id, name, view_type, date_property, start_date_property,
      end_date_property, timeline_scale, filters, sorts, visible_properties, position, created_by, created_at, updated_at)
    VALUES (${newId()}, ${databaseId}, ${input.name ?? defaultName(input.view_type)}, ${input.view_type},
      ${resolved.date_property}, ${resolved.start_date_property}, ${resolved.end_date_property}, ${resolved.timeline_scale},
      ${JSON.stringify(resolved.filters)}, ${JSON.stringify(resolved.sorts)},
      ${resolved.visible_properties === null ? null : JSON.stringify(resolved.visible_properties)},
      ${input.position ?? null}, ${userId}, ${timestamp}, ${timestamp})
    RETURNING *`);
  return presentView(record);
}

/** Applies a change to a view; the resulting settings are validated as a whole. */
export async function updateView(
  db: Database,
  userId: string,
  viewId: string,
  change: ViewSettings,
): Promise<DatabaseView> {
  const current = await getView(db, userId, viewId);
  const schema = await loadDatabaseSchema(db, userId, current.database_id);
  const type = change.view_type ?? current.view_type;
  const typeChanged = type !== current.view_type;
  // Layout fields of the old type do not carry over to a new type unless given again.
  const keep = <T>(given: T | undefined, stored: T, layoutOf: ViewType[]): T | null =>
    given !== undefined ? given : typeChanged && !layoutOf.includes(type) ? null : stored;
  const resolved = resolveSettings(schema, {
    view_type: type,
    date_property: keep(change.date_property, current.date_property, ["calendar"]),
    start_date_property: keep(change.start_date_property, current.start_date_property, ["timeline"]),
    end_date_property: keep(change.end_date_property, current.end_date_property, ["timeline"]),
    timeline_scale: keep(change.timeline_scale, current.timeline_scale, ["timeline"]),
    filters: change.filters ?? current.filters,
    sorts: change.sorts ?? current.sorts,
    visible_properties:
      change.visible_properties !== undefined ? change.visible_properties : current.visible_properties,
  });
  // Only columns this change sets (or whose value the type change clears) are written, so
  // concurrent changes to different settings of one view do not undo each other.
  const asText = (value: unknown) => (value === null ? null : JSON.stringify(value));
  const columns: [column: string, given: boolean, next: unknown, stored: unknown][] = [
    ["name", change.name !== undefined, change.name ?? current.name, current.name],
    ["view_type", change.view_type !== undefined, type, current.view_type],
    ["date_property", change.date_property !== undefined, resolved.date_property, current.date_property],
    [
      "start_date_property",
      change.start_date_property !== undefined,
      resolved.start_date_property,
      current.start_date_property,
    ],
    [
      "end_date_property",
      change.end_date_property !== undefined,
      resolved.end_date_property,
      current.end_date_property,
    ],
    ["timeline_scale", change.timeline_scale !== undefined, resolved.timeline_scale, current.timeline_scale],
    ["filters", change.filters !== undefined, asText(resolved.filters), asText(current.filters)],
    ["sorts", change.sorts !== undefined, asText(resolved.sorts), asText(current.sorts)],
    [
      "visible_properties",
      change.visible_properties !== undefined,
      asText(resolved.visible_properties),
      asText(current.visible_properties),
    ],
    [
      "position",
      change.position !== undefined,
      change.position !== undefined ? change.position : current.position,
      current.position,
    ],
  ];
  const assignments = columns
    .filter(([, given, next, stored]) => given || next !== stored)
    .map(([column, , next]) => sql`${sql.raw(column)} = ${next}`);
  assignments.push(sql`updated_at = ${new Date().toISOString()}`);
  const record = await db.get<ViewRecord | undefined>(sql`
    UPDATE database_views AS v SET ${sql.join(assignments, sql`, `)}
    WHERE v.id = ${viewId} AND ${visibleView(userId)}
    RETURNING *`);
  if (!record) throw viewNotFound(viewId);
  return presentView(record);
}

export async function deleteView(db: Database, userId: string, viewId: string): Promise<void> {
  const deleted = await db.all<{ id: string }>(
    sql`DELETE FROM database_views AS v WHERE v.id = ${viewId} AND ${visibleView(userId)} RETURNING id`,
  );
  if (deleted.length === 0) throw viewNotFound(viewId);
}
