import type { Block } from "../schemas/blocks";
import { contentText } from "../services/content/editor-content";
import { asPageContent } from "../services/content/page-content";
import { titleText } from "../services/pages/pages";

// How tool answers read to an agent: short plain lines, ids beside what they name.

/** Longest label of a block in a listing or tree, in characters. */
const LABEL_MAX = 80;

/** Text cut to `max` characters, with an ellipsis when cut. */
const clipped = (text: string, max: number): string =>
  text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;

/** A value as a person reads it: an option by its name, a date range as start → end, a list joined. */
function valueText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.map(valueText).filter(Boolean).join(", ");
  if (typeof value === "object") {
    const record = value as Record<string, unknown>;
    if (typeof record.name === "string") return record.name;
    if (typeof record.start === "string") return record.end ? `${record.start} → ${record.end}` : record.start;
    return JSON.stringify(value);
  }
  return String(value);
}

/** `Name: value; Other: value` of the values that are set. */
export const valuesLine = (values: Record<string, unknown>): string =>
  Object.entries(values)
    .map(([name, value]) => [name, valueText(value)] as const)
    .filter(([, text]) => text !== "")
    .map(([name, text]) => `${name}: ${text}`)
    .join("; ");

/** The words of a stored body, whatever its shape (a page's items, an editor block's spans): as an export reads them. */
const bodyText = (content: unknown): string => contentText(asPageContent(content));

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/**
 * What a block says, in one line: its title (`title`, a row's from its database: mcp/row-titles.ts),
 * else its text (its text property, or its body).
 */
export function blockLabel(block: Pick<Block, "properties" | "content">, title?: string): string {
  const text =
    title || titleText(block.properties.title) || titleText(block.properties.text) || bodyText(block.content);
  return clipped(oneLine(text), LABEL_MAX);
}

/** Every string a block's title, values and body hold, space-separated: what a search matched in. */
export function searchableText(block: Pick<Block, "properties" | "content">): string {
  const values = Object.values(block.properties).flatMap((value) =>
    typeof value === "string" ? [value] : [titleText(value)],
  );
  return oneLine([...values, bodyText(block.content)].filter(Boolean).join(" "));
}

/** Characters of context a snippet keeps on each side of the first match. */
const SNIPPET_CONTEXT = 60;

/** The part of `text` around the first place a word of `query` appears in it (case ignored), else its beginning. */
export function snippet(text: string, query: string): string {
  const lower = text.toLowerCase();
  const words = (query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).filter(Boolean);
  const at = words.map((word) => lower.indexOf(word)).filter((index) => index >= 0);
  if (at.length === 0) return clipped(text, 2 * SNIPPET_CONTEXT);
  const first = Math.min(...at);
  const start = Math.max(0, first - SNIPPET_CONTEXT);
  const end = Math.min(text.length, first + SNIPPET_CONTEXT);
  return `${start > 0 ? "…" : ""}${text.slice(start, end).trim()}${end < text.length ? "…" : ""}`;
}
