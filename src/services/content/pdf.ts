import { PDFDocument } from "pdf-lib";
import { spansText } from "./editor-content";
import { isListLike, normalizeContent } from "./normalize";
import { COLORS, type FontName, type PdfLayout as Layout, PdfLayout, type Run } from "./pdf-layout";
import type { ContentItem, TextSpan } from "./schema";

/**
 * Canonical content → a PDF (A4, standard fonts). Characters outside WinAnsi (emoji, CJK, …)
 * are printed as "?"; see pdf-layout.ts for why.
 */
export async function contentToPdf(
  items: readonly ContentItem[],
  options: { title?: string } = {},
): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  if (options.title) doc.setTitle(options.title);
  doc.setCreator("workspace-api");
  const layout = await PdfLayout.create(doc);
  if (options.title) layout.paragraph([{ text: options.title, font: "bold", size: 22 }], { spaceAfter: 12 });
  renderBlocks(layout, normalizeContent(items), 0);
  layout.numberPages();
  return doc.save();
}

const BODY = 11;
const HEADING_SIZES = { "heading-1": 18, "heading-2": 15, "heading-3": 13 } as const;
const LEVEL_INDENT = 18;
/** Room left of a list item's text for its bullet, number or box. */
const MARKER_WIDTH = 26;

function fontOf(span: TextSpan, base: FontName = "regular"): FontName {
  if (span.code) return "mono";
  const bold = span.bold || base === "bold";
  const italic = span.italic || base === "italic";
  return bold && italic ? "boldItalic" : bold ? "bold" : italic ? "italic" : "regular";
}

function runs(spans: readonly TextSpan[], size = BODY, base: FontName = "regular"): Run[] {
  return spans.map((span) => ({
    text: span.text,
    font: fontOf(span, base),
    size: span.code ? size * 0.92 : size,
    ...(span.link ? { color: COLORS.link } : {}),
    ...(span.strikethrough ? { strike: true } : {}),
  }));
}

function renderBlocks(layout: Layout, items: readonly ContentItem[], indent: number): void {
  const numbers: number[] = []; // per list depth, reset by anything else at that depth
  for (const item of items) {
    if (!isListLike(item)) numbers.length = 0;
    renderBlock(layout, item, indent, numbers);
  }
}

function renderBlock(layout: Layout, item: ContentItem, indent: number, numbers: number[]): void {
  const text = runs(item.children);
  switch (item.type) {
    case "paragraph":
      layout.paragraph(text, { indent, spaceAfter: 6 });
      return;
    case "heading-1":
    case "heading-2":
    case "heading-3": {
      const size = HEADING_SIZES[item.type];
      layout.space(size * 0.5);
      layout.paragraph(runs(item.children, size, "bold"), { indent, spaceAfter: 4 });
      return;
    }
    case "bulleted-list":
    case "numbered-list":
    case "to_do": {
      const depth = item.indent ?? 0;
      numbers.length = depth + 1;
      const number = item.type === "numbered-list" ? (numbers[depth] ?? 0) + 1 : 0;
      numbers[depth] = number;
      const label =
        item.type === "numbered-list" ? `${number}.` : item.type === "to_do" ? (item.checked ? "[x]" : "[ ]") : "•";
      const markerFont: FontName = item.type === "to_do" ? "mono" : "regular";
      const markerSize = item.type === "to_do" ? 10 : BODY;
      const left = indent + depth * LEVEL_INDENT + MARKER_WIDTH;
      const marker = {
        text: label,
        font: markerFont,
        size: markerSize,
        width: layout.measure(`${label} `, markerFont, markerSize),
      };
      const body = item.type === "to_do" && item.checked ? text.map((run) => ({ ...run, color: COLORS.muted })) : text;
      layout.paragraph(body, { indent: left, marker, spaceAfter: 2 });
      return;
    }
    case "quote":
      layout.paragraph(runs(item.children, BODY, "italic"), { indent: indent + 14, bar: true, spaceAfter: 6 });
      return;
    case "callout": {
      // An icon the fonts cannot draw at all (most emoji) is left out rather than printed as "?".
      const icon = item.icon ? layout.encodable(item.icon, "regular") : "";
      const iconRuns: Run[] = icon.replaceAll("?", "").trim() ? [{ text: `${icon}  `, font: "bold", size: BODY }] : [];
      layout.paragraph([...iconRuns, ...text], { indent: indent + 8, shaded: true, spaceAfter: 6 });
      return;
    }
    case "code": {
      if (item.language)
        layout.paragraph([{ text: item.language, font: "italic", size: 8, color: COLORS.muted }], { indent });
      const code = spansText(item.children);
      layout.paragraph([{ text: code || " ", font: "mono", size: 9.5 }], {
        indent: indent + 6,
        shaded: true,
        lineHeight: 13,
        preserveSpaces: true,
      });
      layout.space(6);
      return;
    }
    case "divider":
      layout.rule(indent);
      return;
    case "toggle":
      layout.paragraph([{ text: "› ", font: "bold", size: BODY }, ...text], { indent, spaceAfter: 2 });
      renderBlocks(layout, item.content ?? [], indent + LEVEL_INDENT);
      layout.space(4);
      return;
    case "table":
      item.rows.forEach((row, index) => {
        const header = index === 0 && item.has_header;
        layout.paragraph(
          [
            {
              text: row.map((cell) => cell.replaceAll("\n", " ")).join("  |  "),
              font: header ? "bold" : "regular",
              size: 10,
            },
          ],
          {
            indent,
            spaceAfter: 2,
          },
        );
        if (header) layout.rule(indent);
      });
      layout.space(6);
      return;
    case "image":
    case "video":
    case "audio":
    case "embed": {
      const caption = spansText(item.children);
      layout.paragraph(
        [
          { text: `[${item.type}] `, font: "bold", size: BODY, color: COLORS.muted },
          { text: item.url, font: "regular", size: BODY, color: COLORS.link },
          ...(caption ? [{ text: ` ${caption}`, font: "italic" as const, size: BODY }] : []),
        ],
        { indent, spaceAfter: 6 },
      );
      return;
    }
  }
}
