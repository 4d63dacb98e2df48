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

/**
 * RFC 4180 CSV of a database: one column per schema property in schema order,
 * headed by display name; CRLF line ends, fields quoted when they need it.
 */
export function rowsToCsv(schema: DatabaseSchema, rows: Row[]): string {
  const header = schema.properties.map((property) => property.name);
  const body = rows.map((row) =>
    schema.properties.map((property) => readable(property, row.properties_by_name[property.name])),
  );
  return Papa.unparse({ fields: header, data: body }, { newline: "\r\n", quotes: false, header: true });
}
