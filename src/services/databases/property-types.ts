/** Property types a database schema can hold. */
export const PROPERTY_TYPES = [
  "title",
  "text",
  "number",
  "select",
  "multi_select",
  "status",
  "date",
  "checkbox",
  "url",
  "email",
  "phone_number",
  "created_time",
  "created_by",
  "last_edited_time",
  "last_edited_by",
] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

/** Types whose values come from the row itself (timestamps, users): never written by clients. */
export const COMPUTED_PROPERTY_TYPES: ReadonlySet<PropertyType> = new Set([
  "created_time",
  "created_by",
  "last_edited_time",
  "last_edited_by",
]);

/** Types whose values must be one of the property's options. */
export const SELECT_LIKE_TYPES: ReadonlySet<PropertyType> = new Set(["select", "multi_select", "status"]);

export const OPTION_COLORS = [
  "default",
  "gray",
  "brown",
  "orange",
  "yellow",
  "green",
  "blue",
  "purple",
  "pink",
  "red",
] as const;

export interface SelectOption {
  id: string;
  name: string;
  color: string;
}

export interface PropertyDefinition {
  id: string;
  name: string;
  type: PropertyType;
  options: SelectOption[];
  position: number;
}

/** A database's schema as rows are validated against it. */
export interface DatabaseSchema {
  databaseId: string;
  properties: PropertyDefinition[];
  /** True when read from an older database's inline `properties.schema` (no schema records). */
  legacy: boolean;
}

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
