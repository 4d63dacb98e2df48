import Papa from "papaparse";
import { dateStart } from "../databases/date-value";
import type { DatabaseSchema, PropertyDefinition } from "../databases/property-types";
import type { Row } from "../databases/rows";
import { titleText } from "../pages/pages";

/** A value as a person reads it in a spreadsheet cell. */
function readable(property: PropertyDefinition, value: unknown): string {
  if (value === null || value === undefined) return "";
  switch (property.type) {
    case "select":
    case "status":
      return typeof value === "object" ? String((value as { name?: unknown }).name ?? "") : String(value);
    case "multi_select":
      return Array.isArray(value)
        ? value.map((option) => (typeof option === "object" ? (option as { name?: string }).name : option)).join(", ")
        : String(value);
    case "checkbox":
      return value === true ? "Yes" : "No";
    case "date": {
      const start = dateStart(value);
      const end = typeof value === "object" ? (value as { end?: unknown }).end : undefined;
      return typeof end === "string" && end ? `${start} → ${end}` : (start ?? "");
    }
    case "title":
    case "text":
      return titleText(value);
    default:
      return typeof value === "object" ? JSON.stringify(value) : String(value);
  }
}

/** A number cell stays a number (PapaParse never escapes numbers); everything else is text. */
const cell = (property: PropertyDefinition, value: unknown): string | number =>
  property.type === "number" && typeof value === "number" ? value : readable(property, value);

const CSV_OPTIONS = {
  newline: "\r\n",
  quotes: false,
  // A text cell a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab, a
  // carriage return or NUL) is prefixed with `'` and quoted, so it opens as the text it is (OWASP's
  // advice; ASVS 5.0 V1.2.10 adds NUL). PapaParse's own pattern ends in `.*$`, which misses a
  // formula followed by a line break: hence this one.
  escapeFormulae: /^[=+\-@\t\r\0]/,
} as const;

/** The header line of a database's CSV: one column per schema property in schema order, by display name. */
export const csvHeader = (schema: DatabaseSchema): string =>
  Papa.unparse([schema.properties.map((property) => property.name)], CSV_OPTIONS);

/**
 * RFC 4180 lines of rows (CRLF between them, none after the last): the cells
 * under `csvHeader`, fields quoted when they need it.
 */
export const csvLines = (schema: DatabaseSchema, rows: Row[]): string =>
  Papa.unparse(
    rows.map((row) => schema.properties.map((property) => cell(property, row.properties_by_name[property.name]))),
    CSV_OPTIONS,
  );
