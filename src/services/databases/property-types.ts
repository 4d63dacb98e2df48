import type { PropertyDefinition, PropertyType } from "../../schemas/databases";

export {
  OPTION_COLORS,
  PROPERTY_TYPES,
  type PropertyDefinition,
  type PropertyType,
  type SelectOption,
} from "../../schemas/databases";

/**
 * The one list of computed types: their values come from the row's own columns (timestamps,
 * users), never from its stored properties, so clients never write them, the row-value index
 * holds no entries for them, and queries, presenters and exports read the column named here.
 */
export const COMPUTED_PROPERTY_COLUMNS = {
  created_time: "created_at",
  created_by: "created_by",
  last_edited_time: "updated_at",
  last_edited_by: "last_edited_by",
} as const satisfies Partial<Record<PropertyType, string>>;

export type ComputedPropertyType = keyof typeof COMPUTED_PROPERTY_COLUMNS;

/** The computed types (COMPUTED_PROPERTY_COLUMNS) as a set. */
export const COMPUTED_PROPERTY_TYPES: ReadonlySet<PropertyType> = new Set(
  Object.keys(COMPUTED_PROPERTY_COLUMNS) as ComputedPropertyType[],
);

export const isComputedType = (type: PropertyType): type is ComputedPropertyType => COMPUTED_PROPERTY_TYPES.has(type);

/**
 * Property types with row-value index entries: every stored (not computed) type, written out as
 * migrations/0012 lists them, since a type added later has no entries until a migration adds them.
 */
export const INDEXED_TYPES: ReadonlySet<PropertyType> = new Set([
  "title",
  "text",
  "url",
  "email",
  "phone_number",
  "number",
  "checkbox",
  "select",
  "status",
  "date",
  "multi_select",
]);

/** Types a calendar or timeline can be laid out by. */
export const DATE_LIKE_TYPES: ReadonlySet<PropertyType> = new Set(["date", "created_time", "last_edited_time"]);

/** Types whose values must be one of the property's options. */
export const SELECT_LIKE_TYPES: ReadonlySet<PropertyType> = new Set(["select", "multi_select", "status"]);

/** A database's schema as rows are validated against it. */
export interface DatabaseSchema {
  databaseId: string;
  properties: PropertyDefinition[];
  /** True when read from an older database's inline `properties.schema` (no schema records). */
  legacy: boolean;
  /**
   * The database's schema version when read: every schema change increments it,
   * and writes validated against this schema apply only while it still holds.
   */
  version: number;
  /**
   * For a legacy schema, the version of the database block it is read from: its inline schema is
   * part of the block, and changes with it without a schema change (part of the schema's entity tag).
   */
  inlineVersion?: number;
  /**
   * When the database block was created: a database deleted and created again with the same id
   * starts its `version` over, so this tells its incarnations apart (in its tag and every guard).
   */
  createdAt: string;
}

/**
 * Properties one database may have, its default columns included: every row write and query reads
 * the whole schema, and an inline schema of a new database is checked whole in the request.
 */
export const MAX_PROPERTIES = 500;
/** Options one select-like property may have. */
export const MAX_OPTIONS = 500;

/** The columns every new database starts with (contract, Block rule 8): the title, then each computed type, named as its type. */
export const DEFAULT_PROPERTIES: { name: string; type: PropertyType }[] = [
  { name: "title", type: "title" },
  ...[...COMPUTED_PROPERTY_TYPES].map((type) => ({ name: type, type })),
];

const shortRandom = () => crypto.randomUUID().replaceAll("-", "").slice(0, 16);
export const newPropertyId = () => `prop_${shortRandom()}`;
export const newOptionId = () => `opt_${shortRandom()}`;
