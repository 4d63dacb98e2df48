import { spansText } from "./editor-content";
import { ENTITY_AMPERSAND, linkDestination, longestRun, spansToHtml, spansToMarkdown } from "./inline-markdown";
import { markdownToContent } from "./markdown-parse";
import { isListLike, normalizeContent } from "./normalize";
import type { ContentItem, MediaItem, TableItem } from "./schema";

export { markdownToContent } from "./markdown-parse";
export { normalizeContent } from "./normalize";

/**
 * Canonical content → GitHub-flavoured markdown. markdownToContent reads every construct used
 * here back to the same (normalised) items:
 *
 * - `#`/`##`/`###` headings, paragraphs (an empty one is `<br>`), `> ` quotes
 * - lists one item per line: `- `, `1. `, `- [ ] `/`- [x] `; `indent` nests under the item above
 * - callout as a GitHub alert `> [!NOTE]`, its icon (if any) on the next line, then a blank `>`
 * - fenced code with the language, `---` divider, GFM table (no header: an empty header row)
 * - toggle as `<details><summary>…</summary>` with its content as markdown inside
 * - `![caption](url)` image; `[caption](url "video")` for video, audio and embed
 *
 * Line breaks inside a text are hard breaks (`\` at the line end) or `<br>`.
 */
export function contentToMarkdown(items: readonly ContentItem[], options: { title?: string } = {}): string {
  const body = renderBlocks(normalizeContent(items));
  const title = options.title ? `# ${spansToMarkdown([{ text: options.title }], HEADING)}` : "";
  const document = [title, body].filter(Boolean).join("\n\n");
  return document ? `${document}\n` : "";
}

const PARAGRAPH = { breaks: "hard" } as const;
const HEADING = { breaks: "html", escapeExtra: "#" } as const;
const CELL = { breaks: "html", escapeExtra: "|" } as const;
const ONE_LINE = { breaks: "html" } as const;
const oneLine = (text: string) => spansToMarkdown([{ text }], ONE_LINE);

function renderBlocks(items: readonly ContentItem[]): string {
  const lists = new ListWriter();
  let out = "";
  items.forEach((item, index) => {
    if (!isListLike(item)) lists.reset();
    const block = isListLike(item) ? lists.write(item) : renderBlock(item);
    // List items of one run sit on consecutive lines (a tight list); everything else is a paragraph.
    const previous = items[index - 1];
    const separator = index === 0 ? "" : previous && isListLike(previous) && isListLike(item) ? "\n" : "\n\n";
    out += separator + block;
  });
  return out;
}

function renderBlock(item: ContentItem): string {
  switch (item.type) {
    case "paragraph":
      return spansToMarkdown(item.children, PARAGRAPH) || "<br>";
    case "heading-1":
    case "heading-2":
    case "heading-3":
      return `${"#".repeat(Number(item.type.slice(-1)))} ${spansToMarkdown(item.children, HEADING)}`.trimEnd();
    case "quote":
      return quoteLines(spansToMarkdown(item.children, PARAGRAPH));
    case "callout": {
      const text = spansToMarkdown(item.children, PARAGRAPH);
      if (!item.icon) return quoteLines(text ? `[!NOTE]\n${text}` : "[!NOTE]");
      // The blank line tells the icon from the text; an empty text keeps its place with <br>.
      return quoteLines(`[!NOTE]\n${oneLine(item.icon)}\n\n${text || "<br>"}`);
    }
    case "code": {
      const code = spansText(item.children);
      // The parser reads backslash escapes and entities in the info string.
      const language = (item.language ?? "")
        .replaceAll("\n", " ")
        .replaceAll("\\", "\\\\")
        .replace(ENTITY_AMPERSAND, "\\&");
      // A backtick fence cannot carry a backtick in its info string; tildes can.
      const mark = language.includes("`") ? "~" : "`";
      const fence = mark.repeat(Math.max(2, longestRun(code, mark === "`" ? /`{3,}/g : /~{3,}/g)) + 1);
      return code ? `${fence}${language}\n${code}\n${fence}` : `${fence}${language}\n${fence}`;
    }
    case "divider":
      return "---";
    case "toggle": {
      const summary = `<details>\n<summary>${spansToHtml(item.children)}</summary>`;
      const inner = renderBlocks(item.content ?? []);
      return inner ? `${summary}\n\n${inner}\n\n</details>` : `${summary}\n</details>`;
    }
    case "table":
      return renderTable(item);
    case "image":
    case "video":
    case "audio":
    case "embed":
      return renderMedia(item);
    default:
      return "";
  }
}

/**
 * `![caption](url)` or `[caption](url "video")`. The parser misreads a few bracket-and-paren
 * sequences in link text (e.g. `\[!x\]()`), so a caption that does not read back is written
 * again with every ASCII punctuation character escaped.
 */
function renderMedia(item: MediaItem): string {
  const caption = spansText(item.children);
  const write = (text: string) =>
    `${item.type === "image" ? "!" : ""}[${text}](${linkDestination(item.url)}${item.type === "image" ? "" : ` "${item.type}"`})`;
  const simple = write(oneLine(caption));
  const [read, ...rest] = markdownToContent(simple);
  if (rest.length === 0 && read?.type === item.type && spansText(read.children) === caption) return simple;
  return write(
    caption
      .split("\n")
      .map((line) => line.replace(/[!-/:-@[-`{-~]/g, "\\$&"))
      .join("<br>"),
  );
}

const quoteLines = (markdown: string) =>
  markdown
    .split("\n")
    .map((line) => (line ? `> ${line}` : ">"))
    .join("\n");

function renderTable(item: TableItem): string {
  const row = (cells: readonly string[]) =>
    `| ${cells.map((cell) => spansToMarkdown([{ text: cell }], CELL)).join(" | ")} |`;
  const [first = [], ...rest] = item.rows;
  const header = item.has_header ? first : first.map(() => "");
  // A header row that is there but empty must not read back as "no header".
  const emptyHeader = item.has_header && header.every((cell) => cell === "");
  const body = item.has_header ? rest : item.rows;
  const headerRow = emptyHeader ? row(header).replace("|  |", "| <!----> |") : row(header);
  return [headerRow, `| ${first.map(() => "---").join(" | ")} |`, ...body.map(row)].join("\n");
}

/**
 * Writes consecutive list items with markers and indentation. A nested item starts at the
 * content column of the item above it, which depends on that item's marker (`- ` vs `10. `).
 */
class ListWriter {
  private columns: number[] = []; // content column per depth
  private numbers: number[] = []; // last number per depth, 0 after a non-numbered item

  reset() {
    this.columns = [];
    this.numbers = [];
  }

  write(item: ContentItem & { indent?: number }): string {
    const depth = item.indent ?? 0;
    const prefix = " ".repeat(depth === 0 ? 0 : (this.columns[depth - 1] ?? 0));
    let marker: string;
    if (item.type === "numbered-list") {
      const number = (this.numbers[depth] ?? 0) + 1;
      this.numbers[depth] = number;
      marker = `${number}. `;
    } else {
      this.numbers[depth] = 0;
      marker = "- ";
    }
    this.numbers.length = depth + 1; // a deeper list after this item starts counting afresh
    this.columns[depth] = prefix.length + marker.length;
    this.columns.length = depth + 1;
    const box = item.type === "to_do" ? (item.checked ? "[x] " : "[ ] ") : "";
    const text = spansToMarkdown(item.children, PARAGRAPH);
    const continuation = `\n${" ".repeat(prefix.length + marker.length)}`;
    // A bare `-` or `1.` under a line of text would be a heading underline or more text, and a
    // bare `- [ ]` is no task: an empty item holds an (invisible) comment.
    const line = `${prefix}${marker}${box}${text || "<!---->"}`;
    return line.replaceAll("\n", continuation);
  }
}
