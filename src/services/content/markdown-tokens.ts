import MarkdownIt, { type StateBlock, type StateCore, type Token } from "markdown-it";

/**
 * Markdown → markdown-it tokens, the one parser both markdown directions share (import, and the
 * read-back check of the export). markdown-it's default preset: CommonMark with GFM tables and
 * strikethrough. HTML is on, because content reads some of it (toggles, marks, `<br>`) and keeps
 * the rest as text; markdown-it's HTML is never rendered. No linkify (a bare URL stays text) and
 * no typographer. markdown-it parses in time linear in its input
 * (test/services/content/linear-time.test.ts holds it to that).
 */

/**
 * The nesting level at which a block is refused, counted as markdown-it counts it: each quote
 * around the block is a level, each list two (the list and its item). So blocks may sit in 99
 * quotes or 49 lists. Deeper markdown throws a MarkdownNestingError (a 400): markdown-it itself
 * would skip the rest of the document without a word. 100 is markdown-it's default `maxNesting`.
 */
export const MAX_MARKDOWN_NESTING = 100;

/** Markdown nested deeper than MAX_MARKDOWN_NESTING. A RangeError, which routes answer with a 400. */
export class MarkdownNestingError extends RangeError {
  constructor() {
    super(`Markdown nests blocks more than ${MAX_MARKDOWN_NESTING} levels deep`);
    this.name = "MarkdownNestingError";
  }
}

const md = new MarkdownIt("default", {
  html: true,
  linkify: false,
  typographer: false,
  // One above our own limit, which the block rule below enforces first: markdown-it never
  // reaches its own, where it skips the rest of the input.
  maxNesting: MAX_MARKDOWN_NESTING + 1,
});
// Links are kept as written. markdown-it percent-encodes and punycodes URLs and turns links with
// some schemes (javascript:, file:, data:) into text, which is for rendering HTML; content keeps
// what the author wrote, and the HTML export checks schemes itself (html.ts).
md.validateLink = () => true;
md.normalizeLink = (url) => url;
md.normalizeLinkText = (text) => text;
md.block.ruler.before("table", "nesting_limit", refuseDeepNesting);
md.core.ruler.after("block", "content_markers", readMarkers);

/** The tokens of `markdown`: block tokens, with inline ones in `children` of `inline` tokens. */
export function markdownTokens(markdown: string): Token[] {
  return md.parse(markdown, {});
}

/** A fence's info string as written: backslash escapes and entities read. */
export const fenceInfo = (info: string) => md.utils.unescapeAll(info).trim();

/** Runs before every block at every level: refuses one that would nest too deeply. */
function refuseDeepNesting(state: StateBlock): boolean {
  if (state.level >= MAX_MARKDOWN_NESTING) throw new MarkdownNestingError();
  return false;
}

const TASK = /^\[([ xX])\][ \t\n]+/;
const ALERT = /^\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\][ \t]*(?:\n|$)/i;

/**
 * Markers read from the raw text of a first paragraph, before inline parsing: a GFM task marker
 * (`[ ]`, `[x]`) starting a list item sets `meta.checked` on its `list_item_open`; a GitHub alert
 * line (`[!NOTE]`…) starting a quote sets `meta.alert` on its `blockquote_open`. The marker is
 * taken off the text. Read from the raw text, an escaped `\[ ]` or `\[!NOTE]` stays text, and a
 * `[x]` that a link definition names is still a box.
 */
function readMarkers(state: StateCore): void {
  const { tokens } = state;
  for (let i = 0; i + 2 < tokens.length; i++) {
    const open = tokens[i] as Token;
    const inline = tokens[i + 2] as Token;
    if (tokens[i + 1]?.type !== "paragraph_open" || inline.type !== "inline") continue;
    if (open.type === "list_item_open") {
      const task = TASK.exec(inline.content);
      if (!task) continue;
      open.meta = { ...open.meta, checked: task[1] !== " " };
      inline.content = inline.content.slice(task[0].length);
    } else if (open.type === "blockquote_open") {
      const alert = ALERT.exec(inline.content);
      if (!alert) continue;
      open.meta = { ...open.meta, alert: true };
      inline.content = inline.content.slice(alert[0].length);
    }
  }
}
