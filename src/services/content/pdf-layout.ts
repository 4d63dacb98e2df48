import { PageSizes, type PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from "pdf-lib";

/**
 * A minimal flowing-text layout on pdf-lib: word wrapping of styled runs, a cursor that moves
 * down the page and a new A4 page whenever the next line would not fit.
 *
 * Only the standard PDF fonts are used, so nothing has to be bundled into the Worker. Their
 * encoding is WinAnsi (Latin-1 plus a few typographic characters): anything else — emoji, CJK,
 * most non-Latin scripts — cannot be drawn and pdf-lib would throw, so such characters are
 * printed as "?". Embedding a Unicode TTF via @pdf-lib/fontkit would lift this, at the cost of
 * megabytes per font in the bundle and in every PDF.
 */

export const [PAGE_WIDTH, PAGE_HEIGHT] = PageSizes.A4 as [number, number];
export const MARGIN = 56;
const CONTENT_BOTTOM = MARGIN + 14; // room for the page number

export type FontName = "regular" | "bold" | "italic" | "boldItalic" | "mono";
export type Color = ReturnType<typeof rgb>;

export const COLORS = {
  text: rgb(0.12, 0.14, 0.16),
  muted: rgb(0.42, 0.45, 0.49),
  link: rgb(0.04, 0.36, 0.8),
  rule: rgb(0.82, 0.84, 0.87),
  shade: rgb(0.96, 0.97, 0.98),
};

export interface Run {
  text: string;
  font: FontName;
  size: number;
  color?: Color;
  strike?: boolean;
}

export interface ParagraphOptions {
  /** Left edge of the text, from the left margin. */
  indent?: number;
  lineHeight?: number;
  spaceAfter?: number;
  /** Drawn in the first line's baseline left of the text (a bullet, number or box). */
  marker?: Run & { width: number };
  /** Light background behind each line (code, callouts). */
  shaded?: boolean;
  /** A vertical bar left of the lines (quotes). */
  bar?: boolean;
  /** Keep spaces at the start of a line (code indentation). */
  preserveSpaces?: boolean;
}

interface Piece extends Run {
  width: number;
}

export class PdfLayout {
  private page!: PDFPage;
  private y = 0;
  private readonly charsets = new Map<FontName, Set<number>>();

  private constructor(
    readonly doc: PDFDocument,
    private readonly fonts: Record<FontName, PDFFont>,
  ) {
    for (const [name, font] of Object.entries(fonts) as [FontName, PDFFont][]) {
      this.charsets.set(name, new Set(font.getCharacterSet()));
    }
    this.newPage();
  }

  static async create(doc: PDFDocument): Promise<PdfLayout> {
    const [regular, bold, italic, boldItalic, mono] = await Promise.all(
      [
        StandardFonts.Helvetica,
        StandardFonts.HelveticaBold,
        StandardFonts.HelveticaOblique,
        StandardFonts.HelveticaBoldOblique,
        StandardFonts.Courier,
      ].map((font) => doc.embedFont(font)),
    );
    return new PdfLayout(doc, { regular, bold, italic, boldItalic, mono } as Record<FontName, PDFFont>);
  }

  get width(): number {
    return PAGE_WIDTH - 2 * MARGIN;
  }

  /** Text the font can encode: tabs as spaces, anything outside its character set as "?". */
  encodable(text: string, font: FontName): string {
    const charset = this.charsets.get(font) as Set<number>;
    let out = "";
    for (const ch of text.replaceAll("\t", "    ").replace(/\r\n?/g, "\n")) {
      const code = ch.codePointAt(0) as number;
      // Variation selectors and joiners belong to the emoji before them, already a "?".
      if (code === 0xfe0f || code === 0x200d) continue;
      out += ch === "\n" || charset.has(code) ? ch : "?";
    }
    return out;
  }

  newPage(): void {
    this.page = this.doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    this.y = PAGE_HEIGHT - MARGIN;
  }

  /** Moves down by `height`, first starting a new page if that would cross the bottom margin. */
  private take(height: number): number {
    if (this.y - height < CONTENT_BOTTOM && this.y < PAGE_HEIGHT - MARGIN) this.newPage();
    this.y -= height;
    return this.y;
  }

  space(height: number): void {
    this.y = Math.max(CONTENT_BOTTOM, this.y - height);
  }

  rule(indent = 0): void {
    const y = this.take(12) + 6;
    this.page.drawLine({
      start: { x: MARGIN + indent, y },
      end: { x: MARGIN + this.width, y },
      thickness: 0.75,
      color: COLORS.rule,
    });
  }

  /** Wraps and draws styled runs; `\n` in a run forces a line break. */
  paragraph(runs: readonly Run[], options: ParagraphOptions = {}): void {
    const indent = options.indent ?? 0;
    const size = runs.reduce((largest, run) => Math.max(largest, run.size), Math.max(options.marker?.size ?? 0, 1));
    const lineHeight = options.lineHeight ?? size * 1.4;
    const lines = this.wrap(runs, this.width - indent, options.preserveSpaces ?? false);
    lines.forEach((line, index) => {
      const baseline = this.take(lineHeight) + (lineHeight - size) / 2 + size * 0.22;
      const x0 = MARGIN + indent;
      if (options.shaded) {
        this.page.drawRectangle({
          x: x0 - 6,
          y: this.y,
          width: this.width - indent + 6,
          height: lineHeight,
          color: COLORS.shade,
        });
      }
      if (options.bar) {
        this.page.drawLine({
          start: { x: x0 - 10, y: this.y },
          end: { x: x0 - 10, y: this.y + lineHeight },
          thickness: 2,
          color: COLORS.rule,
        });
      }
      if (index === 0 && options.marker) this.drawPiece(options.marker, x0 - options.marker.width, baseline);
      let x = x0;
      for (const piece of sameStyleRuns(line)) {
        this.drawPiece(piece, x, baseline);
        x += piece.width;
      }
    });
    this.space(options.spaceAfter ?? 0);
  }

  measure(text: string, font: FontName, size: number): number {
    return this.fonts[font].widthOfTextAtSize(this.encodable(text, font), size);
  }

  /** Draws a piece, or the words of a line that share a style as one text (see sameStyleRuns). */
  private drawPiece(piece: Run & { words?: readonly Piece[] }, x: number, baseline: number): void {
    const text = this.encodable(piece.text, piece.font);
    if (text.trim() === "") return; // spaces only move x, which the caller already did
    const color = piece.color ?? COLORS.text;
    this.page.drawText(text, { x, y: baseline, size: piece.size, font: this.fonts[piece.font], color });
    if (!piece.strike) return;
    // Struck through word by word: the spaces between words stay clear.
    let left = x;
    for (const word of piece.words ?? [{ ...piece, width: 0 }]) {
      const shown = this.encodable(word.text, word.font);
      if (shown.trim() !== "") {
        const y = baseline + word.size * 0.3;
        const width = this.measure(shown, word.font, word.size);
        this.page.drawLine({ start: { x: left, y }, end: { x: left + width, y }, thickness: 0.6, color });
      }
      left += word.width;
    }
  }

  /** Greedy word wrap; a word longer than a whole line is split between characters. */
  private wrap(runs: readonly Run[], maxWidth: number, preserveSpaces: boolean): Piece[][] {
    const lines: Piece[][] = [[]];
    let lineWidth = 0;
    const breakLine = () => {
      lines.push([]);
      lineWidth = 0;
    };
    const place = (run: Run, text: string) => {
      const width = this.measure(text, run.font, run.size);
      const line = lines.at(-1) as Piece[];
      if (/^\s+$/.test(text)) {
        if (line.length > 0 || preserveSpaces) {
          line.push({ ...run, text, width });
          lineWidth += width;
        }
        return;
      }
      if (lineWidth + width > maxWidth && line.length > 0) {
        // Trailing spaces of the full line would only push a struck-through line too far.
        while (line.length > 0 && /^\s+$/.test((line.at(-1) as Piece).text)) lineWidth -= (line.pop() as Piece).width;
        breakLine();
      }
      if (width > maxWidth) {
        // Measured a character at a time: measuring the whole chunk for every character would
        // take time quadratic in its length, which characters of no width leave unbounded.
        const widthOf = (shown: string) => this.fonts[run.font].widthOfTextAtSize(shown, run.size);
        let chunk = "";
        let chunkWidth = 0;
        let last = ""; // the chunk's last drawn character, for the kerning before the next one
        for (const ch of text) {
          const shown = this.encodable(ch, run.font);
          const after = (before: string) => (shown === "" ? 0 : widthOf(before + shown) - widthOf(before));
          let added = after(last);
          if (chunk && chunkWidth + added > maxWidth) {
            (lines.at(-1) as Piece[]).push({ ...run, text: chunk, width: this.measure(chunk, run.font, run.size) });
            breakLine();
            [chunk, chunkWidth, last] = ["", 0, ""];
            added = after(last);
          }
          chunk += ch;
          chunkWidth += added;
          if (shown !== "") last = shown;
        }
        text = chunk;
      }
      const last = lines.at(-1) as Piece[];
      const w = this.measure(text, run.font, run.size);
      last.push({ ...run, text, width: w });
      lineWidth += w;
    };
    for (const run of runs) {
      // A carriage return breaks the line too (alone or before \n): kept in a word, it would reach the font.
      run.text.split(/\r\n?|\n/).forEach((segment, index) => {
        if (index > 0) breakLine();
        for (const word of segment.split(/(\s+)/)) if (word) place(run, word);
      });
    }
    return lines;
  }

  /** "n / total" at the foot of every page, drawn once the page count is known. */
  numberPages(): void {
    const pages = this.doc.getPages();
    pages.forEach((page, index) => {
      const label = `${index + 1} / ${pages.length}`;
      const width = this.fonts.regular.widthOfTextAtSize(label, 8);
      page.drawText(label, {
        x: (PAGE_WIDTH - width) / 2,
        y: MARGIN / 2,
        size: 8,
        font: this.fonts.regular,
        color: COLORS.muted,
      });
    });
  }
}

/**
 * A line's pieces with consecutive pieces of one style joined, so that a line takes one text
 * operation per style rather than one per word (which made large documents slow to render).
 */
function sameStyleRuns(line: readonly Piece[]): (Piece & { words: Piece[] })[] {
  const runs: (Piece & { words: Piece[] })[] = [];
  for (const piece of line) {
    const last = runs.at(-1);
    if (
      last &&
      last.font === piece.font &&
      last.size === piece.size &&
      last.color === piece.color &&
      !!last.strike === !!piece.strike
    ) {
      last.text += piece.text;
      last.width += piece.width;
      last.words.push(piece);
    } else {
      runs.push({ ...piece, words: [piece] });
    }
  }
  return runs;
}
