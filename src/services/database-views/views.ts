import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { RawRow } from "../../db/rows";
import type { databaseViews } from "../../db/schema";
import type { UserContext } from "../../lib/context";
import {
  assertPreconditions,
  hasPreconditions,
  type Preconditions,
  preconditionSql,
  type Validator,
  withValidator,
} from "../../lib/entity-tags";
import { badRequest, notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import {
  type Listing,
  listingQueries,
  type PageWindow,
  type ResultPage,
  readPage,
  withoutKeyColumns,
} from "../../lib/pagination";
import { retryWhileStale, StaleWrite } from "../../lib/stale-write-retry";
import type { DatabaseView, TimelineScale, ViewType } from "../../schemas/views";
import { visibleTo } from "../blocks/visibility";
import { DATE_LIKE_TYPES, type DatabaseSchema, type PropertyDefinition } from "../databases/property-types";
import { canonicalFilters, canonicalSorts, type RowFilter, type RowSort } from "../databases/row-query";
import { resolvePropertyKey } from "../databases/row-values";
import { loadDatabaseSchema, schemaUnchanged } from "../databases/schema-records";

export type { DatabaseView };

/** A `database_views` row as D1 returns it (the settings' JSON as text). */
type ViewRecord = RawRow<typeof databaseViews, { view_type: ViewType; timeline_scale: TimelineScale | null }>;

/** The kind of a view's entity tag: it names the row's `version`, bumped by every write (RFC 9110 §8.8.3). */
const VIEW_TAG = "v";
const viewValidator = (record: ViewRecord): Validator => ({ kind: VIEW_TAG, id: record.id, parts: [record.version] });

/** The response object of a stored view, carrying its validator for the answer's ETag. */
const presentView = ({ version, ...record }: ViewRecord): DatabaseView =>
  withValidator(
    {
      ...record,
      filters: JSON.parse(record.filters) as RowFilter[],
      sorts: JSON.parse(record.sorts) as RowSort[],
      visible_properties:
        record.visible_properties === null ? null : (JSON.parse(record.visible_properties) as string[]),
    },
    viewValidator({ ...record, version }),
  );

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
const visibleView = (ctx: UserContext): SQL =>
  sql`(v.created_by = ${ctx.actor.userId} OR v.created_by IS NULL)
    AND EXISTS (SELECT 1 FROM blocks b WHERE b.id = v.database_id AND ${visibleTo(ctx.actor)})`;

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

/** One page of a database's saved views, in their order (unpositioned last, then oldest first). */
export async function listViews(
  ctx: UserContext,
  databaseId: string,
  window: PageWindow,
): Promise<ResultPage<DatabaseView>> {
  const listing: Listing = {
    name: "database-views",
    filters: { databaseId },
    keys: [
      { expression: sql`v.position`, direction: "asc", nulls: "last" },
      { expression: sql`v.created_at`, direction: "asc" },
      { expression: sql`v.id`, direction: "asc" },
    ],
  };
  const where = sql`v.database_id = ${databaseId} AND ${visibleView(ctx)}`;
  const [databases, records, counts] = await batchAll<[{ id: string }, ViewRecord, { total: number }]>(ctx.db, [
    sql`SELECT b.id FROM blocks b WHERE b.id = ${databaseId} AND b.type = 'database' AND ${visibleTo(ctx.actor)}`,
    ...(await listingQueries(
      ctx,
      listing,
      { select: sql`SELECT v.*`, from: sql`FROM database_views v`, where },
      window,
    )),
  ]);
  if (databases.length === 0) throw notFound("Database not found", { database_id: databaseId });
  return readPage(ctx, listing, records, counts, window, (record) => presentView(withoutKeyColumns(record)));
}

async function findView(ctx: UserContext, viewId: string): Promise<ViewRecord> {
  const record = await ctx.db.get<ViewRecord | undefined>(
    sql`SELECT v.* FROM database_views v WHERE v.id = ${viewId} AND ${visibleView(ctx)}`,
  );
  if (!record) throw viewNotFound(viewId);
  return record;
}

export async function getView(ctx: UserContext, viewId: string): Promise<DatabaseView> {
  return presentView(await findView(ctx, viewId));
}

const defaultName = (type: ViewType) => `${type[0]?.toUpperCase()}${type.slice(1)} view`;

const asText = (value: unknown) => (value === null ? null : JSON.stringify(value));

/** Saves a view, validated against the database's schema; applied only while that schema holds. */
export function createView(
  ctx: UserContext,
  databaseId: string,
  input: ViewSettings & { view_type: ViewType },
): Promise<DatabaseView> {
  return retryWhileStale("database schema", async () => {
    const schema = await loadDatabaseSchema(ctx, databaseId);
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
    const timestamp = ctx.now().toISOString();
    const record = await ctx.db.get<ViewRecord | undefined>(sql`
      INSERT INTO database_views (id, database_id, name, view_type, date_property, start_date_property,
        end_date_property, timeline_scale, filters, sorts, visible_properties, position, created_by, created_at,
        updated_at)
      SELECT ${newId()}, ${databaseId}, ${input.name ?? defaultName(input.view_type)}, ${input.view_type},
        ${resolved.date_property}, ${resolved.start_date_property}, ${resolved.end_date_property},
        ${resolved.timeline_scale}, ${asText(resolved.filters)}, ${asText(resolved.sorts)},
        ${asText(resolved.visible_properties)}, ${input.position ?? null}, ${ctx.actor.userId}, ${timestamp}, ${timestamp}
      WHERE ${schemaUnchanged(schema)}
      RETURNING *`);
    if (!record) throw new StaleWrite();
    return presentView(record);
  });
}

/**
 * Applies a change to a view. The resulting settings are validated as a whole
 * against the view as read and the database's schema, and written only while
 * both still hold; otherwise both are read again and the change reapplied, so
 * concurrent changes compose and never combine into settings one change refuses.
 */
export function updateView(
  ctx: UserContext,
  viewId: string,
  change: ViewSettings,
  preconditions: Preconditions = {},
): Promise<DatabaseView> {
  return retryWhileStale("view", async () => {
    const stored = await findView(ctx, viewId);
    // The write below applies only to the version read, so the preconditions hold for what it changes.
    assertPreconditions(preconditions, viewValidator(stored));
    const current = presentView(stored);
    const schema = await loadDatabaseSchema(ctx, current.database_id);
    const type = change.view_type ?? current.view_type;
    const typeChanged = type !== current.view_type;
    // Layout fields of the old type do not carry over to a new type unless given again.
    const keep = <T>(given: T | undefined, kept: T, layoutOf: ViewType[]): T | null =>
      given !== undefined ? given : typeChanged && !layoutOf.includes(type) ? null : kept;
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
    const record = await ctx.db.get<ViewRecord | undefined>(sql`
      UPDATE database_views AS v SET name = ${change.name ?? current.name}, view_type = ${type},
        date_property = ${resolved.date_property}, start_date_property = ${resolved.start_date_property},
        end_date_property = ${resolved.end_date_property}, timeline_scale = ${resolved.timeline_scale},
        filters = ${asText(resolved.filters)}, sorts = ${asText(resolved.sorts)},
        visible_properties = ${asText(resolved.visible_properties)},
        position = ${change.position !== undefined ? change.position : current.position},
        version = version + 1, updated_at = ${ctx.now().toISOString()}
      WHERE v.id = ${viewId} AND v.version = ${stored.version} AND ${visibleView(ctx)} AND ${schemaUnchanged(schema)}
      RETURNING *`);
    if (!record) throw new StaleWrite();
    return presentView(record);
  });
}

/** Deletes a visible view; with preconditions (If-Match, If-None-Match), only while they hold, checked in the DELETE. */
export async function deleteView(ctx: UserContext, viewId: string, preconditions: Preconditions = {}): Promise<void> {
  const expected = preconditionSql(preconditions, { kind: VIEW_TAG, id: viewId, columns: [sql`v.version`] });
  const deleted = await ctx.db.all<{ id: string }>(
    sql`DELETE FROM database_views AS v WHERE v.id = ${viewId} AND ${visibleView(ctx)}
      ${expected ? sql`AND ${expected}` : sql``} RETURNING id`,
  );
  if (deleted.length > 0) return;
  // Refused: a read explains why (404, or 412 with the current tag), on this path only.
  if (hasPreconditions(preconditions)) assertPreconditions(preconditions, viewValidator(await findView(ctx, viewId)));
  throw viewNotFound(viewId);
}
