import type { PropertyDefinition, PropertyType } from "../../schemas/databases";

export {
  OPTION_COLORS,
  PROPERTY_TYPES,
  type PropertyDefinition,
  type PropertyType,
  type SelectOption,
} from "../../schemas/databases";

/** Types whose values come from the row itself (timestamps, users): never written by clients. */
export const COMPUTED_PROPERTY_TYPES: ReadonlySet<PropertyType> = new Set([
  "created_time",
  "created_by",
  "last_edited_time",
  "last_edited_by",
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
}

/**
 * Properties one database may have, its default columns included: every row write and query reads
 * the whole schema, and an inline schema of a new database is checked whole in the request.
 */
export const MAX_PROPERTIES = 500;
/** Options one select-like property may have. */
export const MAX_OPTIONS = 500;

/** The columns every new database starts with (contract, Block rule 8). */
export const DEFAULT_PROPERTIES: { name: string; type: PropertyType }[] = [
  { name: "title", type: "title" },
  { name: "created_time", type: "created_time" },
  { name: "created_by", type: "created_by" },
  { name: "last_edited_time", type: "last_edited_time" },
  { name: "last_edited_by", type: "last_edited_by" },
];

const shortRandom = () => crypto.randomUUID().replaceAll("-", "").slice(0, 16);
export const newPropertyId = () => `prop_${shortRandom()}`;
export const newOptionId = () => `opt_${shortRandom()}`;
