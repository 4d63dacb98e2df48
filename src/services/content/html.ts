import { spansText } from "./editor-content";
import { escapeHtml } from "./inline-markdown";
import { safeUrl } from "./links";
import { isListLike, normalizeContent } from "./normalize";
import type { ContentItem, MediaItem, TableItem, TextSpan } from "./schema";

/**
 * Canonical content → a complete, standalone HTML document. Every text and attribute is
 * escaped, and URLs with a scheme that could run code (`javascript:` and the like) are not
 * linked (safeUrl: the rule writes are held to, for content stored before it or around it). A Content-Security-Policy forbids scripts, so even a mistake here cannot run any.
 */
export function contentToHtml(items: readonly ContentItem[], options: { title?: string } = {}): string {
  const title = options.title ?? "";
  const body = renderBlocks(normalizeContent(items));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src * data:; media-src * data:; frame-src https:; style-src 'unsafe-inline'">
<title>${escapeHtml(title || "Untitled")}</title>
<style>${STYLE}</style>
</head>
<body>
<article>
${title ? `<h1 class="page-title">${escapeHtml(title)}</h1>\n` : ""}${body}
</article>
</body>
</html>
`;
}

const STYLE = `
body { font: 16px/1.6 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; margin: 0; }
article { max-width: 46rem; margin: 2rem auto; padding: 0 1rem; }
pre { background: #f6f8fa; padding: .75rem 1rem; overflow-x: auto; border-radius: 6px; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .9em; }
blockquote { margin: 1rem 0; padding-left: 1rem; border-left: 4px solid #d0d7de; color: #59636e; }
aside.callout { display: flex; gap: .75rem; background: #f6f8fa; padding: .75rem 1rem; border-radius: 6px; }
ul.todo { list-style: none; padding-left: 1.25rem; }
li.checked > span { text-decoration: line-through; color: #59636e; }
table { border-collapse: collapse; } th, td { border: 1px solid #d0d7de; padding: .25rem .6rem; }
figure { margin: 1rem 0; } img, video, iframe { max-width: 100%; } iframe { width: 100%; aspect-ratio: 16 / 9; border: 0; }
figcaption { color: #59636e; font-size: .9em; }
details { margin: .5rem 0; } details > :not(summary) { margin-left: 1.25rem; }
`;

export function spansToHtmlInline(spans: readonly TextSpan[]): string {
  return spans
    .map((span) => {
      let html = escapeHtml(span.text).replaceAll("\n", "<br>");
      if (span.code) html = `<code>${html}</code>`;
      if (span.strikethrough) html = `<s>${html}</s>`;
      if (span.italic) html = `<em>${html}</em>`;
      if (span.bold) html = `<strong>${html}</strong>`;
      if (span.mention) {
        const { type, id } = span.mention;
        return `<span class="mention mention-${type}" data-mention-type="${type}" data-mention-id="${escapeHtml(id)}">${html}</span>`;
      }
      const href = span.link ? safeUrl(span.link) : undefined;
      return href ? `<a href="${escapeHtml(href)}">${html}</a>` : html;
    })
    .join("");
}

function renderBlocks(items: readonly ContentItem[]): string {
  const out: string[] = [];
  for (let index = 0; index < items.length; ) {
    if (isListLike(items[index] as ContentItem)) {
      let end = index;
      while (end < items.length && isListLike(items[end] as ContentItem)) end++;
      out.push(renderListRun(items.slice(index, end)));
      index = end;
    } else {
      out.push(renderBlock(items[index] as ContentItem));
      index++;
    }
  }
  return out.join("\n");
}

function renderBlock(item: ContentItem): string {
  const inline = spansToHtmlInline(item.children);
  switch (item.type) {
    case "paragraph":
      return `<p>${inline || "<br>"}</p>`;
    case "heading-1":
    case "heading-2":
    case "heading-3": {
      const tag = `h${item.type.slice(-1)}`;
      return `<${tag}>${inline}</${tag}>`;
    }
    case "quote":
      return `<blockquote><p>${inline}</p></blockquote>`;
    case "callout": {
      const icon = item.icon ? `<span class="callout-icon" aria-hidden="true">${escapeHtml(item.icon)}</span>` : "";
      return `<aside class="callout">${icon}<div>${inline}</div></aside>`;
    }
    case "code": {
      const language = item.language ? ` class="language-${escapeHtml(item.language.replace(/[^\w+#.-]/g, "-"))}"` : "";
      return `<pre><code${language}>${escapeHtml(spansText(item.children))}</code></pre>`;
    }
    case "divider":
      return "<hr>";
    case "toggle":
      return `<details>\n<summary>${inline}</summary>\n${[renderBlocks(item.content ?? []), "</details>"].filter(Boolean).join("\n")}`;
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
 * Consecutive list items as nested lists: deeper items go inside the `<li>` above them, and a
 * change between bulleted (or to-do) and numbered at one depth starts a new list.
 */
function renderListRun(items: readonly ContentItem[]): string {
  let html = "";
  const open: string[] = []; // tag of the open list per depth; its last <li> is open too
  for (const item of items) {
    const depth = "indent" in item ? (item.indent ?? 0) : 0;
    const tag = item.type === "numbered-list" ? "ol" : "ul";
    while (open.length > depth + 1) html += `</li></${open.pop()}>`;
    if (open.length === depth + 1 && open[depth] === tag) {
      html += "</li>";
    } else {
      if (open.length === depth + 1) html += `</li></${open.pop()}>`;
      html += tag === "ul" && item.type === "to_do" ? '<ul class="todo">' : `<${tag}>`;
      open.push(tag);
    }
    const text = spansToHtmlInline(item.children);
    if (item.type === "to_do") {
      const checked = item.checked ? " checked" : "";
      html += `<li class="todo${checked}"><input type="checkbox" disabled${checked}> <span>${text}</span>`;
    } else {
      html += `<li>${text}`;
    }
  }
  while (open.length > 0) html += `</li></${open.pop()}>`;
  return html;
}

function renderTable(item: TableItem): string {
  const row = (cells: readonly string[], cell: "th" | "td") =>
    `<tr>${cells.map((text) => `<${cell}>${escapeHtml(text).replaceAll("\n", "<br>")}</${cell}>`).join("")}</tr>`;
  const [first = [], ...rest] = item.rows;
  const head = item.has_header ? `<thead>${row(first, "th")}</thead>` : "";
  const body = (item.has_header ? rest : item.rows).map((cells) => row(cells, "td")).join("");
  return `<table>${head}<tbody>${body}</tbody></table>`;
}

function renderMedia(item: MediaItem): string {
  const caption = spansText(item.children);
  const kind = item.type === "embed" ? undefined : item.type;
  const url = safeUrl(item.url, kind);
  if (!url) return `<p>${escapeHtml(caption || item.url)}</p>`;
  const src = escapeHtml(url);
  const link = `<a href="${src}">${escapeHtml(caption || url)}</a>`;
  const figcaption = caption ? `<figcaption>${escapeHtml(caption)}</figcaption>` : "";
  switch (item.type) {
    case "image":
      return `<figure><img src="${src}" alt="${escapeHtml(caption)}">${figcaption}</figure>`;
    case "video":
      return `<figure><video controls preload="metadata" src="${src}">${link}</video>${figcaption}</figure>`;
    case "audio":
      return `<figure><audio controls preload="metadata" src="${src}">${link}</audio>${figcaption}</figure>`;
    default:
      // Only https pages can be framed (see the CSP); anything else is a plain link.
      return url.toLowerCase().startsWith("https:")
        ? `<figure class="embed"><iframe src="${src}" title="${escapeHtml(caption || url)}" loading="lazy" sandbox="allow-scripts allow-same-origin allow-popups allow-presentation"></iframe><figcaption>${link}</figcaption></figure>`
        : `<p class="embed">${link}</p>`;
  }
}
