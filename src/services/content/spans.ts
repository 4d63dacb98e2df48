import { mentionOfHref } from "./mentions";
import type { TextSpan } from "./schema";

/** Text spans in the one form every export and the markdown round trip agree on. */

export type Mark = "bold" | "italic" | "strikethrough";
export const MARKS: readonly Mark[] = ["bold", "italic", "strikethrough"];

/**
 * The form both directions agree on: known keys only, no false/empty marks, adjacent spans with
 * the same marks merged, empty spans dropped (but never an empty list), and edge whitespace of
 * bold/italic/strikethrough spans moved outside the mark — markdown cannot emphasise it.
 */
export function normalizeSpans(spans: readonly TextSpan[] | undefined): TextSpan[] {
  // Merge before moving whitespace: only the edges of a whole marked run lose their mark.
  const out = merge(merge((spans ?? []).map(cleanSpan)).flatMap(splitEdgeWhitespace));
  return out.length > 0 ? out : [{ text: "" }];
}

function merge(spans: readonly TextSpan[]): TextSpan[] {
  const out: TextSpan[] = [];
  for (const span of spans) {
    if (span.text === "") continue;
    const last = out.at(-1);
    if (last && sameMarks(last, span)) last.text += span.text;
    else out.push({ ...span });
  }
  return out;
}

function cleanSpan(span: TextSpan): TextSpan {
  const clean: TextSpan = { text: span.text };
  if (span.bold) clean.bold = true;
  if (span.italic) clean.italic = true;
  if (span.strikethrough) clean.strikethrough = true;
  if (span.code) clean.code = true;
  // A mention is not also a link (the markdown of the two would collide); a link to a
  // `mention:` destination is the mention it reads as in markdown.
  const mention = span.mention ?? (span.link ? mentionOfHref(span.link) : undefined);
  if (mention) clean.mention = { type: mention.type, id: mention.id };
  else if (span.link) clean.link = span.link;
  return clean;
}

function splitEdgeWhitespace(span: TextSpan): TextSpan[] {
  if (span.code || !MARKS.some((mark) => span[mark])) return [span];
  // trimStart/trimEnd strip exactly what `\s` matches. (A regex such as /(\s*)$/ tries every
  // position of a long inner run of spaces, which takes time quadratic in its length.)
  const { text } = span;
  const start = text.length - text.trimStart().length;
  const end = start === text.length ? text.length : text.trimEnd().length;
  const plain = (part: string): TextSpan => {
    if (span.mention) return { text: part, mention: span.mention };
    return span.link ? { text: part, link: span.link } : { text: part };
  };
  return [plain(text.slice(0, start)), { ...span, text: text.slice(start, end) }, plain(text.slice(end))];
}

export const sameMarks = (a: TextSpan, b: TextSpan) =>
  !!a.bold === !!b.bold &&
  !!a.italic === !!b.italic &&
  !!a.strikethrough === !!b.strikethrough &&
  !!a.code === !!b.code &&
  (a.link ?? "") === (b.link ?? "") &&
  a.mention?.type === b.mention?.type &&
  a.mention?.id === b.mention?.id;
