import { getDefaults, Lexer, type Links, type Token, Tokenizer, type Tokens, type TokensList } from "marked";
import { BlockRun, emphasisWeightsFor, InlineRun, strikeWeights } from "./markdown-scan";

/**
 * marked's lexer (GFM, autolinks off) in time linear in its input.
 *
 * marked tokenizes by matching a regex at each position. Several of its rules scan ahead to a
 * terminator and, when there is none, scan again from the next position, which takes time
 * quadratic in the input: the text rule's e-mail lookahead over `!!!…`; a comment, `<?`, `<!X `
 * or CDATA opener without its end; an emphasis or strikethrough opener whose closer never comes
 * (it walks every delimiter after it); a backtick run without a run of its length; a link whose
 * destination runs to the end of the text (`[a](b)[a](b)…` reads to the end at every `[`); a
 * code span or escape in a long link label; a setext heading looked for at every line of a list
 * item. Nested lists, quotes, emphasis and links are lexed again at every level.
 *
 * The tokenizer below keeps marked's results and replaces those scans: the positions they look
 * for are found once per inline run (the text one call of `inlineTokens` lexes) and looked up,
 * and a scan that fails is remembered for the positions after it. marked itself is called where
 * its work is bounded by what the token it returns consumes. Nesting deeper than
 * MAX_MARKDOWN_NESTING levels is read as text. test/services/content/markdown-lexer.test.ts
 * compares the tokens with marked's own.
 */

/** Lists, quotes, emphasis and links nested deeper than this are read as text. */
export const MAX_MARKDOWN_NESTING = 16;

/** The block tokens of `markdown`, with their inline tokens (as marked.lexer, GFM, no autolinks). */
export function lexMarkdown(markdown: string): TokensList {
  return new LinearLexer().lex(markdown);
}

/** A block token as the block loop handles it. */
type BlockToken = Token & { raw: string; text: string };

class LinearLexer extends Lexer {
  /** Inline runs being lexed, innermost last. */
  readonly inlineRuns: InlineRun[] = [];
  /** Sources of the block lexing calls under way, innermost last. */
  readonly blockRuns: BlockRun[] = [];
  private readonly tokenizer_: LinearTokenizer;
  /** Whether the raw text of a token that lines were appended to ends with a newline. */
  private readonly rawEndsWithNewline = new WeakMap<Token, boolean>();

  constructor() {
    const tokenizer = new LinearTokenizer();
    super({ ...getDefaults(), gfm: true, tokenizer });
    tokenizer.attach(this);
    this.tokenizer_ = tokenizer;
  }

  override blockTokens(src: string, tokens?: Token[], lastParagraphClipped?: boolean): Token[];
  override blockTokens(src: string, tokens?: TokensList, lastParagraphClipped?: boolean): TokensList;
  override blockTokens(src: string, tokens: Token[] = [], lastParagraphClipped = false): Token[] {
    if (this.blockRuns.length >= MAX_MARKDOWN_NESTING) {
      let end = src.length;
      while (end > 0 && src[end - 1] === "\n") end--;
      const text = src.slice(0, end);
      tokens.push({ type: "paragraph", raw: src, text, tokens: this.inline(text) } as Tokens.Paragraph);
      return tokens;
    }
    this.blockRuns.push(new BlockRun(src));
    try {
      return this.lexBlocks(src, tokens, lastParagraphClipped);
    } finally {
      this.blockRuns.pop();
    }
  }

  /**
   * marked's Lexer.blockTokens (GFM, no extensions), except that it remembers whether a token it
   * appends lines to ends with a newline instead of asking the string: reading the end of a
   * string that grew by appending copies it whole (V8 flattens it), so a paragraph or list item
   * that took many appended lines took time quadratic in their number.
   */
  private lexBlocks(src: string, tokens: Token[], lastParagraphClipped: boolean): Token[] {
    const tokenizer = this.tokenizer_;
    tokenizer.lexer = this;
    const outerLastToken = this.state.lastToken;
    let srcLength = Number.POSITIVE_INFINITY;
    let lastParagraph: Token | undefined;
    let clipped = lastParagraphClipped;
    const last = () => tokens.at(-1) as BlockToken | undefined;
    /**
     * Appends a token to the paragraph or text token before it: its raw lines, and `text` to
     * what is lexed inline (a token that queued its own inline text gives its entry up).
     */
    const join = (into: BlockToken, raw: string, text: string, queued: boolean) => {
      const newline = this.rawEndsWithNewline.get(into) ?? into.raw.endsWith("\n");
      into.raw += (newline ? "" : "\n") + raw;
      this.rawEndsWithNewline.set(into, raw.endsWith("\n"));
      into.text += `\n${text}`;
      if (queued) this.inlineQueue.pop();
      (this.inlineQueue.at(-1) as { src: string }).src = into.text;
    };
    const take = (token: { raw: string }) => {
      src = src.substring(token.raw.length);
    };
    while (src) {
      if (src.length >= srcLength) throw new Error(`Infinite loop on byte: ${src.charCodeAt(0)}`);
      srcLength = src.length;
      this.state.lastToken = tokens.at(-1);
      const previous = last();
      const textLike = previous?.type === "paragraph" || previous?.type === "text";

      const space = tokenizer.space(src);
      if (space) {
        take(space);
        if (space.raw.length === 1 && previous !== undefined) {
          // A single newline ends the last line: it goes with the token before it.
          previous.raw += "\n";
          this.rawEndsWithNewline.set(previous, true);
        } else {
          tokens.push(space);
        }
        continue;
      }
      const code = tokenizer.code(src);
      if (code) {
        take(code);
        // An indented code block cannot interrupt a paragraph.
        if (previous && textLike) join(previous, code.raw, code.text, false);
        else tokens.push(code);
        continue;
      }
      const block = (tokenizer.fences(src) ??
        tokenizer.heading(src) ??
        tokenizer.hr(src) ??
        tokenizer.blockquote(src) ??
        tokenizer.list(src) ??
        tokenizer.html(src)) as BlockToken | undefined;
      if (block) {
        take(block);
        tokens.push(block);
        continue;
      }
      const def = tokenizer.def(src);
      if (def) {
        take(def);
        if (previous && textLike) {
          join(previous, def.raw, def.raw, false);
        } else {
          // The first definition of a label wins, but a later one still consumes its text.
          this.tokens.links[def.tag] ??= { href: def.href, title: def.title };
          tokens.push(def);
        }
        continue;
      }
      const table = tokenizer.table(src) ?? tokenizer.lheading(src);
      if (table) {
        take(table);
        tokens.push(table);
        continue;
      }
      const paragraph = this.state.top ? tokenizer.paragraph(src) : undefined;
      if (paragraph) {
        // A table-shaped header the table rule rejected is still paragraph continuation.
        if ((clipped || previous === lastParagraph) && previous?.type === "paragraph") {
          join(previous, paragraph.raw, paragraph.text, true);
          lastParagraph = previous;
        } else {
          tokens.push(paragraph);
          lastParagraph = paragraph;
        }
        clipped = false;
        take(paragraph);
        continue;
      }
      const text = tokenizer.text(src);
      if (text) {
        take(text);
        if (previous?.type === "text") join(previous, text.raw, text.text, true);
        else tokens.push(text);
        continue;
      }
      throw new Error(`Infinite loop on byte: ${src.charCodeAt(0)}`);
    }
    this.state.top = true;
    this.state.lastToken = outerLastToken;
    return tokens;
  }

  override inlineTokens(src: string, tokens: Token[] = []): Token[] {
    if (this.inlineRuns.length >= MAX_MARKDOWN_NESTING) {
      tokens.push({ type: "text", raw: src, text: src, escaped: false } as Tokens.Text);
      return tokens;
    }
    this.inlineRuns.push(new InlineRun(src));
    try {
      return super.inlineTokens(src, tokens);
    } finally {
      this.inlineRuns.pop();
    }
  }

  /** The inline run `text` is the rest of (or of its masked copy, which has the same length). */
  inlineRunOf(text: string): InlineRun | undefined {
    const run = this.inlineRuns.at(-1);
    return run && text.length <= run.src.length ? run : undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Rules used by marked itself, in place of its own

// marked's GFM text rule without its stops for autolinks (switched off here): its e-mail
// lookahead ran over `!!!…` from every `!`.
const TEXT = /^(`+|~+|[^`~])(?:(?=[`~])|(?= {2,}\n)|[\s\S]*?(?:(?=[\\<![`*~_]|\b_|$)|[^ ](?= {2,}\n)))/;

/** One of marked's rules, replaced by a subclass that knows the lexer and the run it reads. */
abstract class LexerRule extends RegExp {
  // Derived regexes (matchAll, split) are plain copies of the rule.
  static override get [Symbol.species]() {
    return RegExp;
  }

  constructor(
    rule: RegExp,
    protected readonly lexer: LinearLexer,
  ) {
    super(rule.source, rule.flags);
  }
}

/** The end an HTML tag opener needs: its terminator, at or after `from` characters in. */
function tagEnd(text: string): { kind: string; terminator: string; from: number } | undefined {
  if (text.startsWith("<!--")) return { kind: "comment", terminator: "-->", from: 2 };
  if (text.startsWith("<?")) return { kind: "instruction", terminator: "?>", from: 2 };
  if (text.startsWith("<![CDATA[")) return { kind: "cdata", terminator: "]]>", from: 9 };
  if (/^<![a-zA-Z]+\s/.test(text)) return { kind: "declaration", terminator: ">", from: 2 };
  return undefined;
}

/**
 * marked's inline `tag` rule, which fails at once for a comment, `<?`, declaration or CDATA
 * opener whose terminator does not come later in the run. While marked masks the run, some
 * terminators are masked too (escaped); a miss is remembered for the openers after it.
 */
class TagRule extends LexerRule {
  override exec(text: string): RegExpExecArray | null {
    const run = this.lexer.inlineRunOf(text);
    const end = run && tagEnd(text);
    if (!run || !end) return super.exec(text);
    const at = run.at(text);
    if (run.lastIndexOf(end.terminator) < at + end.from) return null;
    const missed = run.masking ? run.missed(end.kind) : undefined;
    if (missed !== undefined && at >= missed) return null;
    const match = super.exec(text);
    if (!match && run.masking) run.miss(end.kind, at);
    return match;
  }
}

/**
 * marked's rule that masks escapes outside code spans (global, used with `replace`): a backtick
 * run that no run of its length follows is matched as a plain run without the code span search.
 */
class CodeMaskRule extends LexerRule {
  private readonly atPosition: RegExp;
  private readonly next = /[`\\]/g;

  constructor(rule: RegExp, lexer: LinearLexer) {
    super(rule, lexer);
    this.atPosition = new RegExp(rule.source, `${rule.flags.replace("g", "")}y`);
  }

  override exec(text: string): RegExpExecArray | null {
    const run = this.lexer.inlineRunOf(text);
    if (!run || text.length !== run.src.length || !this.global) return super.exec(text);
    for (let from = this.lastIndex; ; ) {
      this.next.lastIndex = from;
      const at = this.next.exec(text)?.index;
      if (at === undefined) {
        this.lastIndex = 0;
        return null;
      }
      if (text[at] === "`") {
        let end = at + 1;
        while (text.charCodeAt(end) === 96) end++;
        const key = `code${end - at}`;
        const missed = run.missed(key);
        if (!run.backticks.hasRun(end - at, end + 1) || (missed !== undefined && at >= missed)) {
          this.lastIndex = end;
          const bare = Object.assign([text.slice(at, end), undefined, undefined], { index: at, input: text });
          return bare as unknown as RegExpExecArray;
        }
        this.atPosition.lastIndex = at;
        const match = this.atPosition.exec(text) as RegExpExecArray; // the bare run matches if the span does not
        if (match[1] === undefined) run.miss(key, at);
        this.lastIndex = this.atPosition.lastIndex;
        return match;
      }
      this.atPosition.lastIndex = at;
      const match = this.atPosition.exec(text);
      if (match) {
        this.lastIndex = this.atPosition.lastIndex;
        return match;
      }
      from = at + 1;
    }
  }
}

/**
 * marked's paragraph rule, whose check for a table interrupting the paragraph stops after the
 * delimiter row. (Inside that negative lookahead the table's rows may as well be none, but the
 * rule read them all, from every line of a paragraph of table-like lines the table rule rejects.)
 */
function paragraphRule(paragraph: RegExp, table: RegExp): RegExp {
  const embedded = table.source.replace(/(^|[^[])\^/g, "$1"); // as marked's `edit` embeds it
  const rows = embedded.lastIndexOf("(?:\\n((?:(?!");
  if (rows === -1 || !paragraph.source.includes(embedded)) return paragraph;
  return new RegExp(
    paragraph.source.replace(embedded, () => `${embedded.slice(0, rows)}(?:\\n|$)`),
    paragraph.flags,
  );
}

/**
 * marked's rule that finds reference links to mask them for emphasis. A match is masked only if
 * its label is defined, so without definitions it finds nothing, rather than try up to 999
 * label parts from every `[` of the run.
 */
class ReferenceRule extends LexerRule {
  override exec(text: string): RegExpExecArray | null {
    for (const _ in this.lexer.tokens.links) return super.exec(text);
    this.lastIndex = 0;
    return null;
  }
}

/** The first alternative of an emphasis closer rule, which only matches where a scan starts. */
function windowStartRule(closers: RegExp): RegExp | undefined {
  const first = closers.source.split("|")[0] as string;
  return first.startsWith("^") ? new RegExp(first.slice(1), `${closers.flags.replace("g", "")}y`) : undefined;
}

/**
 * From marked's setext heading rule: what its first line must not start with, and the pattern
 * its text is made of (a line and the lines continuing it), to find where a failed search for
 * its underline stopped.
 */
function headingTextRules(rule: RegExp): { start: RegExp; text: RegExp } | undefined {
  const open = rule.source.indexOf("((?:.|\\n(?!");
  const close = rule.source.lastIndexOf("))+?)\\n {0,3}(=+|-+)");
  if (open === -1 || close === -1 || !rule.source.startsWith("^(?!")) return undefined;
  return {
    start: new RegExp(rule.source.slice(0, open)),
    text: new RegExp(`${rule.source.slice(open + 1, close + 2)}*`, "y"),
  };
}

// ---------------------------------------------------------------------------------------------

class LinearTokenizer extends Tokenizer {
  private linear!: LinearLexer;
  private windowStarts!: Record<string, RegExp | undefined>;
  private headingText?: { start: RegExp; text: RegExp };

  /** Called once the Lexer has set `rules`: swaps in the rules above. */
  attach(lexer: LinearLexer): void {
    this.linear = lexer;
    const { inline, block } = this.rules;
    this.rules = {
      ...this.rules,
      block: { ...block, paragraph: paragraphRule(block.paragraph, block.table) },
      inline: {
        ...inline,
        text: TEXT,
        tag: new TagRule(inline.tag, lexer),
        anyPunctuationOutsideCode: new CodeMaskRule(inline.anyPunctuationOutsideCode, lexer),
        reflinkSearch: new ReferenceRule(inline.reflinkSearch, lexer),
      },
    };
    this.windowStarts = {
      "*": windowStartRule(inline.emStrongRDelimAst),
      _: windowStartRule(inline.emStrongRDelimUnd),
    };
    this.headingText = headingTextRules(block.lheading);
  }

  // Autolinks (bare URLs and e-mail addresses) are off: plain text must stay plain text.
  override url(): undefined {
    return undefined;
  }

  override escape(src: string): Tokens.Escape | undefined {
    // The first rule marked tries for each token: the run is masked by now.
    const run = this.linear.inlineRunOf(src);
    if (run) run.masking = false;
    return super.escape(src);
  }

  override lheading(src: string): Tokens.Heading | undefined {
    const block = this.linear.blockRuns.at(-1);
    if (!block || !this.headingText || src.length > block.src.length) return super.lheading(src);
    const at = block.src.length - src.length;
    if (at >= block.noHeadingFrom && at <= block.noHeadingTo) return undefined;
    const heading = super.lheading(src);
    if (!heading && this.headingText.start.test(src)) {
      // The search for an underline went as far as the text continues, and fails from every
      // line up to there.
      const { text } = this.headingText;
      text.lastIndex = 0;
      text.test(src);
      block.noHeadingFrom = at;
      block.noHeadingTo = at + text.lastIndex;
    }
    return heading;
  }

  /**
   * marked's list rule (GFM), except that it counts the lines it appends to an item instead of
   * asking the item's text whether it holds a newline yet: asking a string that grew by
   * appending copies it whole, once per lazy line (a line that continues an item's paragraph
   * without its indent), so an item of many lazy lines took time quadratic in their number.
   */
  override list(src: string): Tokens.List | undefined {
    const { block, other } = this.rules;
    let cap = block.list.exec(src);
    if (!cap) return undefined;
    // Inside a list item paragraph lines are text tokens: only a bullet or 1 can interrupt one.
    if (this.lexer.state.lastToken?.type === "text" && !other.listInterruptsParagraph.test(src)) return undefined;
    const listSrc = src;
    const taken = () => listSrc.length - src.length;
    let bull = (cap[1] as string).trim();
    const isordered = bull.length > 1;
    const list: Tokens.List = {
      type: "list",
      raw: "",
      ordered: isordered,
      start: isordered ? +bull.slice(0, -1) : "",
      loose: false,
      items: [],
    };
    bull = isordered ? `\\d{1,9}\\${bull.slice(-1)}` : `\\${bull}`;
    const itemRegex = other.listItemRegex(bull);
    let endsWithBlankLine = false;
    while (src) {
      let endEarly = false;
      let itemContents = "";
      let appendedLines = 0;
      cap = itemRegex.exec(src);
      if (!cap) break;
      if (block.hr.test(src)) break; // the bullet was a thematic break
      const itemStart = taken();
      src = src.substring(cap[0].length);
      const firstLine = (cap[2] as string).split("\n", 1)[0] as string;
      const bulletIndent = (cap[1] as string).length;
      let line = firstLine.replace(other.leadingSpaceTab, (whitespace) => expandTabs(whitespace, bulletIndent));
      let nextLine = src.split("\n", 1)[0] as string;
      let blankLine = !line.trim();
      let indent = 0;
      if (blankLine) {
        indent = bulletIndent + 1;
      } else {
        indent = line.search(other.nonSpaceChar);
        indent = indent > 4 ? 1 : indent; // indented code (more than 4 spaces) counts as 1
        itemContents = line.slice(indent);
        indent += bulletIndent;
      }
      if (blankLine && other.blankLine.test(nextLine)) {
        // Items begin with at most one blank line.
        src = src.substring(nextLine.length + 1);
        endEarly = true;
      }
      if (!endEarly) {
        const nextBulletRegex = other.nextBulletRegex(indent);
        const hrRegex = other.hrRegex(indent);
        const fencesBeginRegex = other.fencesBeginRegex(indent);
        const headingBeginRegex = other.headingBeginRegex(indent);
        const htmlBeginRegex = other.htmlBeginRegex(indent);
        const blockquoteBeginRegex = other.blockquoteBeginRegex(indent);
        let lineIsLazy = false; // a lazy line continues a paragraph: no block starts on it
        while (src) {
          const rawLine = src.split("\n", 1)[0] as string;
          nextLine = rawLine;
          const nextLineWithoutTabs = nextLine.replace(other.leadingSpaceTab, (whitespace) => expandTabs(whitespace));
          if (
            fencesBeginRegex.test(nextLine) ||
            headingBeginRegex.test(nextLine) ||
            htmlBeginRegex.test(nextLine) ||
            blockquoteBeginRegex.test(nextLine) ||
            nextBulletRegex.test(nextLine) ||
            hrRegex.test(nextLine)
          ) {
            break;
          }
          if (nextLineWithoutTabs.search(other.nonSpaceChar) >= indent || !nextLine.trim()) {
            itemContents += `\n${nextLineWithoutTabs.slice(indent)}`;
            appendedLines++;
            lineIsLazy = false;
          } else {
            if (blankLine) break; // not enough indentation
            // The first line of an item always starts a block, maybe a nested list item or block
            // quote: look past their markers to the block a lazy line would continue.
            let lastBlock = line;
            if (appendedLines === 0 && !line.includes("\t")) {
              while (!hrRegex.test(lastBlock)) {
                const marker = other.nestedBlockMarker.exec(lastBlock);
                if (!marker) break;
                lastBlock = lastBlock.slice(marker[0].length);
              }
              if (!lastBlock.trim()) break; // an empty list item or block quote
            }
            // Paragraph continuation unless the last line was another kind of block.
            if (lastBlock.replace(other.tabCharGlobal, "    ").search(other.nonSpaceChar) >= 4) break;
            if (
              fencesBeginRegex.test(lastBlock) ||
              headingBeginRegex.test(lastBlock) ||
              htmlBeginRegex.test(lastBlock) ||
              hrRegex.test(lastBlock)
            ) {
              break;
            }
            if (!lineIsLazy) {
              const lastBlockLine = line.replace(other.nestedContainerMarkers, "");
              if (
                block.fences.test(lastBlockLine) ||
                block.heading.test(lastBlockLine) ||
                block.hr.test(lastBlockLine)
              ) {
                break;
              }
            }
            // A lazy line that looks like a setext underline once the list indent is gone stays text.
            const setextContinuation =
              /^ {0,3}(?:=+|-+) *$/.test(nextLine) && block.lheading.test(`${line}\n${nextLine}`);
            itemContents += `\n${setextContinuation ? `    ${nextLineWithoutTabs.replace(/^ {0,3}/, "")}` : nextLine}`;
            appendedLines++;
            lineIsLazy = true;
          }
          blankLine = !nextLine.trim();
          src = src.substring(rawLine.length + 1);
          line = nextLineWithoutTabs.slice(indent);
        }
      }
      const raw = listSrc.slice(itemStart, taken());
      if (!list.loose) {
        if (endsWithBlankLine) list.loose = true;
        else if (other.doubleBlankLine.test(raw)) endsWithBlankLine = true;
      }
      list.items.push({
        type: "list_item",
        raw,
        task: other.listIsTask.test(itemContents),
        loose: false,
        text: itemContents,
        tokens: [],
      });
    }
    const lastItem = list.items.at(-1);
    if (!lastItem) return undefined;
    lastItem.raw = lastItem.raw.trimEnd();
    lastItem.text = lastItem.text.trimEnd();
    list.raw = listSrc.slice(0, taken()).trimEnd();
    // Items are lexed once the last one is trimmed; then checkboxes go where list.loose says.
    const queueStarts: number[] = [];
    for (const item of list.items) {
      this.lexer.state.top = false;
      queueStarts.push(this.lexer.inlineQueue.length);
      item.tokens = this.lexer.blockTokens(item.text, []);
      if (!list.loose) {
        const spacers = item.tokens.filter((token) => token.type === "space");
        list.loose = spacers.length > 0 && spacers.some((token) => other.anyLine.test(token.raw));
      }
    }
    list.items.forEach((item, i) => {
      const itemToken = item.tokens[0] as Tokens.Text | Tokens.Paragraph | undefined;
      if (item.task && (itemToken?.type === "text" || itemToken?.type === "paragraph")) {
        item.text = item.text.replace(other.listReplaceTask, "");
        itemToken.raw = itemToken.raw.replace(other.listReplaceTask, "");
        itemToken.text = itemToken.text.replace(other.listReplaceTask, "");
        const { inlineQueue } = this.lexer;
        for (let j = queueStarts[i] as number; j < inlineQueue.length; j++) {
          const entry = inlineQueue[j] as { src: string; tokens: Token[] };
          if (entry.tokens === itemToken.tokens) {
            entry.src = entry.src.replace(other.listReplaceTask, "");
            break;
          }
        }
        const taskRaw = other.listTaskCheckbox.exec(item.raw);
        if (taskRaw) {
          const checkbox: Tokens.Checkbox = { type: "checkbox", raw: `${taskRaw[0]} `, checked: taskRaw[0] !== "[ ]" };
          item.checked = checkbox.checked;
          if (!list.loose) {
            item.tokens.unshift(checkbox);
          } else if (itemToken.tokens) {
            itemToken.raw = checkbox.raw + itemToken.raw;
            itemToken.text = checkbox.raw + itemToken.text;
            itemToken.tokens.unshift(checkbox);
          } else {
            item.tokens.unshift({ type: "paragraph", raw: checkbox.raw, text: checkbox.raw, tokens: [checkbox] });
          }
        }
      } else if (item.task) {
        item.task = false;
      }
    });
    if (list.loose) {
      for (const item of list.items) {
        item.loose = true;
        for (const token of item.tokens) if (token.type === "text") (token as Token).type = "paragraph";
      }
    }
    return list;
  }

  /**
   * marked's table rule; whether the header and delimiter rows make a table is decided on those
   * two lines first. (On its own the rule reads every row below before it looks at them, so a
   * paragraph of rejected table-like lines was read to its end at every second line.)
   */
  override table(src: string): Tokens.Table | undefined {
    const first = src.indexOf("\n");
    const second = first === -1 ? -1 : src.indexOf("\n", first + 1);
    if (second !== -1 && !this.tableHead(src.slice(0, second))) return undefined;
    return super.table(src);
  }

  /** Whether `head` (two lines) would open a table, without queueing its cells for lexing. */
  private tableHead(head: string): boolean {
    const { inlineQueue } = this.lexer;
    const queued = inlineQueue.length;
    const table = super.table(head);
    inlineQueue.length = queued;
    return table !== undefined;
  }

  override codespan(src: string): Tokens.Codespan | undefined {
    const run = this.linear.inlineRunOf(src);
    if (run && src.charCodeAt(0) === 96) {
      const at = run.at(src);
      let end = at + 1;
      while (run.src.charCodeAt(end) === 96) end++;
      if (!run.backticks.hasRun(end - at, end + 1)) return undefined;
    }
    return super.codespan(src);
  }

  override emStrong(src: string, maskedSrc: string, prevChar = ""): Tokens.Em | Tokens.Strong | undefined {
    return this.emStrongCloses(src, maskedSrc, prevChar) ? super.emStrong(src, maskedSrc, prevChar) : undefined;
  }

  override del(src: string, maskedSrc: string, prevChar = ""): Tokens.Del | undefined {
    return this.delCloses(src, maskedSrc, prevChar) ? super.del(src, maskedSrc, prevChar) : undefined;
  }

  /**
   * Whether marked's emStrong finds a closer for the opener at the start of `src`: its checks
   * of the opener, then its scan of the closers, looked up (see DelimiterRuns).
   */
  private emStrongCloses(src: string, maskedSrc: string, prevChar: string): boolean {
    const run = this.linear.inlineRunOf(src);
    if (!run || maskedSrc.length !== run.src.length) return true;
    const { inline, other } = this.rules;
    const match = inline.emStrongLDelim.exec(src);
    if (!match || (!match[1] && !match[2] && !match[3] && !match[4])) return false;
    const delimChar = match[0][0] as string;
    if (delimChar !== "*" && delimChar !== "_") return false;
    const closers = delimChar === "*" ? inline.emStrongRDelimAst : inline.emStrongRDelimUnd;
    const runs = run.delimiterRuns(maskedSrc, delimChar, closers);
    const srcStart = maskedSrc.length - src.length;
    const opener = runs.indexAt(srcStart);
    if (opener === -1) return true;
    const midRun = prevChar === delimChar;
    const runStart = runs.starts[opener] as number;
    const runPrevChar = [...maskedSrc.slice(Math.max(0, runStart - 2), runStart)].at(-1) ?? "";
    const runPrevPunct = runPrevChar === "*" || runPrevChar === "_" || !!inline.punctuation.exec(runPrevChar);
    let before = prevChar;
    if (runStart < srcStart) before = runPrevChar;
    const prevPunct =
      runStart < srcStart ? runPrevPunct : before === "*" || before === "_" || !!inline.punctuation.exec(before);
    if (match[4] && before.match(other.unicodeAlphaNumeric)) return false;
    const nextChar = match[1] || match[3] || "";
    if (nextChar && before && !prevPunct) return false;
    const lLength = [...match[0]].length - 1;
    const windowStart = srcStart + lLength;
    if (runStart + (runs.lengths[opener] as number) !== windowStart) return true;
    const runLength = windowStart - runStart;
    const openerCanClose = !!runPrevChar.trim() && (!!nextChar || (delimChar === "*" && !runPrevPunct));
    const skip = this.windowStarts[delimChar];
    const first = opener + 1 + (skip && run.skipsAt(maskedSrc, skip, windowStart) ? 1 : 0);
    const remainder = runLength % 3;
    const closer = runs.firstBalanced(emphasisWeightsFor(remainder, openerCanClose), first, lLength);
    if (closer === -1) return false;
    // An opener in the middle of a run stops at a run that could open a span of its own.
    const stop = midRun && remainder !== 0 ? runs.nextBoth(remainder, first) : -1;
    return stop === -1 || closer < stop;
  }

  /** Whether marked's del finds a closer for the opener at the start of `src` (see above). */
  private delCloses(src: string, maskedSrc: string, prevChar: string): boolean {
    const run = this.linear.inlineRunOf(src);
    if (!run || maskedSrc.length !== run.src.length) return true;
    if (src.charCodeAt(0) !== 126) return false;
    const { inline } = this.rules;
    const match = inline.delLDelim.exec(src);
    if (!match) return false;
    const nextChar = match[1] || "";
    if (nextChar && prevChar && !inline.punctuation.exec(prevChar)) return false;
    const lLength = [...match[0]].length - 1;
    const runs = run.delimiterRuns(maskedSrc, "~", inline.delRDelim);
    const srcStart = maskedSrc.length - src.length;
    const opener = runs.indexAt(srcStart);
    if (opener === -1 || (runs.starts[opener] as number) + (runs.lengths[opener] as number) !== srcStart + lLength) {
      return true;
    }
    const weights = strikeWeights[lLength];
    return !weights || runs.firstBalanced(weights, opener + 1, lLength) !== -1;
  }

  override link(src: string): Tokens.Link | Tokens.Image | undefined {
    const run = this.linear.inlineRunOf(src);
    if (!run) return super.link(src);
    if (this.lexer.state.linkParenPossible === false) return undefined;
    const first = src.charCodeAt(0);
    if (first !== 91 && first !== 33) return undefined;
    const at = run.at(src);
    const { links } = run;
    const found = links.match(at);
    if (!found) return undefined;
    const { cap, hrefStart } = found;
    const [raw, label, destination] = cap as [string, string, string];
    const labelStart = raw.charAt(0) === "!" ? 2 : 1;
    if (this.labelEndsInsideToken(run, at + labelStart, label)) return undefined;
    const { other, inline } = this.rules;
    const trimmedUrl = destination.trim();
    if (other.startAngleBracket.test(trimmedUrl)) {
      if (!other.endAngleBracket.test(trimmedUrl)) return undefined;
      if (trailingBackslashes(trimmedUrl.slice(0, -1)) % 2 === 1) return undefined;
    } else {
      const lastParenIndex = links.closingParen(hrefStart, hrefStart + destination.length);
      if (lastParenIndex === -2) return undefined;
      if (lastParenIndex > -1) {
        const start = raw.charAt(0) === "!" ? 5 : 4; // (marked: indexOf, a scan of the whole match)
        cap[2] = destination.substring(0, lastParenIndex);
        cap[0] = raw.substring(0, start + label.length + lastParenIndex).trim();
        cap[3] = "";
      }
    }
    // The `)` that ends the match closes the link only when it is not escaped.
    if (links.isEscaped(at + (cap[0] as string).length - 1)) return undefined;
    let href = (cap[2] as string).trim();
    const title = cap[3] ? cap[3].slice(1, -1) : "";
    if (other.startAngleBracket.test(href)) href = href.slice(1, -1);
    return this.outputLink(run, at, cap, {
      href: href ? href.replace(inline.anyPunctuation, "$1") : href,
      title: title ? title.replace(inline.anyPunctuation, "$1") : title,
    });
  }

  override reflink(src: string, links: Links): Tokens.Link | Tokens.Image | Tokens.Text | undefined {
    const run = this.linear.inlineRunOf(src);
    if (!run) return super.reflink(src, links);
    const first = src.charCodeAt(0);
    if (first !== 91 && first !== 33) return undefined;
    const { inline, other } = this.rules;
    const cap = inline.reflink.exec(src) || inline.nolink.exec(src);
    if (!cap) return undefined;
    const at = run.at(src);
    const labelStart = cap[0].charAt(0) === "!" ? 2 : 1;
    if (this.labelEndsInsideToken(run, at + labelStart, cap[1] as string)) return undefined;
    // marked's normalizeLabel
    const key = (cap[2] || (cap[1] as string))
      .trim()
      .replace(other.multipleSpaceGlobal, " ")
      .toLowerCase()
      .toUpperCase()
      .toLowerCase();
    const link = links[key];
    if (!link) {
      const text = cap[0].charAt(0);
      return { type: "text", raw: text, text };
    }
    return this.outputLink(run, at, cap, link);
  }

  /** marked's isLabelEndInsideToken: whether an HTML tag or autolink in the label runs past its end. */
  private labelEndsInsideToken(run: InlineRun, start: number, label: string): boolean {
    if (!label.includes("<")) return false;
    const { inline } = this.rules;
    for (let i = 0; i < label.length; i++) {
      if (label[i] === "\\") {
        i++;
        continue;
      }
      if (label[i] === "`") {
        const length = run.links.codeSpanLength(start + i, start + label.length);
        if (length > 0) {
          i += length - 1;
          continue;
        }
      }
      if (label[i] !== "<") continue;
      const tokenSrc = run.src.slice(start + i);
      const token = inline.tag.exec(tokenSrc) || inline.autolink.exec(tokenSrc);
      if (!token) continue;
      if (token[0].length > label.length - i) return true;
      i += token[0].length - 1;
    }
    return false;
  }

  /** marked's outputLink, with its label unescaping (unescapeLinkLabel) looking code spans up. */
  private outputLink(
    run: InlineRun,
    at: number,
    cap: readonly string[] | RegExpExecArray,
    link: Pick<Tokens.Link, "href" | "title">,
  ): Tokens.Link | Tokens.Image | undefined {
    const raw = cap[0] as string;
    const label = cap[1] as string;
    const isImage = raw.charAt(0) === "!";
    const start = at + (isImage ? 2 : 1);
    let text = "";
    for (let i = 0; i < label.length; i++) {
      const code = label[i] === "`" ? run.links.codeSpanLength(start + i, start + label.length) : 0;
      if (code > 0) {
        text += label.slice(i, i + code);
        i += code - 1;
      } else if (label[i] === "\\" && (label[i + 1] === "[" || label[i + 1] === "]")) {
        text += label[i + 1];
        i++;
      } else {
        text += label[i];
      }
    }
    const { state } = this.lexer;
    const outerInLink = state.inLink;
    const outerLinkEmitted = state.linkEmitted;
    const outerInRawBlock = state.inRawBlock;
    state.inLink = true;
    state.linkEmitted = false;
    const tokens = this.lexer.inlineTokens(text);
    const textHasLink = state.linkEmitted;
    state.linkEmitted = outerLinkEmitted;
    state.inLink = outerInLink;
    if (!isImage) {
      // CommonMark: links may not contain other links; the inner one is kept.
      if (textHasLink) {
        state.inRawBlock = outerInRawBlock;
        return undefined;
      }
      state.linkEmitted = true;
    }
    return { type: isImage ? "image" : "link", raw, href: link.href, title: link.title || null, text, tokens };
  }
}

function trailingBackslashes(text: string): number {
  let count = 0;
  while (count < text.length && text[text.length - 1 - count] === "\\") count++;
  return count;
}

/** marked's expandTabs: tabs in leading whitespace as spaces to the next multiple of 4. */
function expandTabs(line: string, indent = 0): string {
  let column = indent;
  let expanded = "";
  for (const char of line) {
    if (char === "\t") {
      const added = 4 - (column % 4);
      expanded += " ".repeat(added);
      column += added;
    } else {
      expanded += char;
      column++;
    }
  }
  return expanded;
}
