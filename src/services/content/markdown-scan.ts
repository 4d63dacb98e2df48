/**
 * What the linear markdown lexer (markdown-lexer.ts) looks up instead of scanning for it: per
 * inline run, the runs of backticks and of emphasis delimiters, the ends of HTML openers, and
 * the parts of a link marked's link rule matched with a regex that read ahead.
 */

/** A source of block lexing; lines where no setext heading can start are remembered. */
export class BlockRun {
  noHeadingFrom = 1;
  noHeadingTo = 0;
  constructor(readonly src: string) {}
}

const NONE = 0;
const OPENS = 1;
const CLOSES = 2;
const BOTH = 3;

/** The text one call of `inlineTokens` lexes, and what is known about it. */
export class InlineRun {
  /** True while marked masks the run for emphasis (before it reads the first token). */
  masking = true;
  // Made when first needed: most runs (the text inside one emphasis or link) need none.
  private misses?: Map<string, number>;
  private lastIndexes?: Map<string, number>;
  private backtickRuns?: BacktickRuns;
  private linkScan?: LinkScan;
  private masked?: string;
  private delimiters?: Map<string, DelimiterRuns>;
  private windowSkips?: Map<RegExp, Map<number, boolean>>;

  constructor(readonly src: string) {}

  /** Position of a suffix of the run (or of its masked copy). */
  at(suffix: string): number {
    return this.src.length - suffix.length;
  }

  /** Where an opener of `kind` found no end in the masked run (escapes hide some ends), if one did. */
  missed(kind: string): number | undefined {
    return this.misses?.get(kind);
  }

  /** Remembers that an opener of `kind` at `at` found no end in the masked run. */
  miss(kind: string, at: number): void {
    this.misses ??= new Map();
    this.misses.set(kind, Math.min(at, this.misses.get(kind) ?? at));
  }

  lastIndexOf(text: string): number {
    this.lastIndexes ??= new Map();
    let index = this.lastIndexes.get(text);
    if (index === undefined) {
      index = this.src.lastIndexOf(text);
      this.lastIndexes.set(text, index);
    }
    return index;
  }

  get backticks(): BacktickRuns {
    this.backtickRuns ??= new BacktickRuns(this.src);
    return this.backtickRuns;
  }

  get links(): LinkScan {
    this.linkScan ??= new LinkScan(this.src, this.backticks);
    return this.linkScan;
  }

  /** Runs of `char` in the masked copy of the run, classified by `closers` (see DelimiterRuns). */
  delimiterRuns(masked: string, char: string, closers: RegExp): DelimiterRuns {
    if (this.masked !== masked) {
      this.masked = masked;
      this.delimiters = new Map();
      this.windowSkips = undefined;
    }
    const delimiters = this.delimiters ?? new Map<string, DelimiterRuns>();
    this.delimiters = delimiters;
    let runs = delimiters.get(char);
    if (!runs) {
      runs = new DelimiterRuns(masked, char, closers);
      delimiters.set(char, runs);
    }
    return runs;
  }

  /** Whether `skip` (sticky) matches at `at` of the masked run, remembered per position. */
  skipsAt(masked: string, skip: RegExp, at: number): boolean {
    this.windowSkips ??= new Map();
    let known = this.windowSkips.get(skip);
    if (!known) {
      known = new Map();
      this.windowSkips.set(skip, known);
    }
    let skips = known.get(at);
    if (skips === undefined) {
      skip.lastIndex = at;
      skips = skip.test(masked);
      known.set(at, skips);
    }
    return skips;
  }
}

/** The maximal runs of backticks of a text, by length. */
class BacktickRuns {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly byLength = new Map<number, number[]>();

  constructor(readonly src: string) {
    for (let start = src.indexOf("`"); start !== -1; ) {
      let end = start + 1;
      while (src.charCodeAt(end) === 96) end++;
      this.starts.push(start);
      this.ends.push(end);
      const same = this.byLength.get(end - start);
      if (same) same.push(start);
      else this.byLength.set(end - start, [start]);
      start = src.indexOf("`", end);
    }
  }

  /** Whether a run of exactly `length` backticks starts at or after `from`. */
  hasRun(length: number, from: number): boolean {
    const starts = this.byLength.get(length);
    return !!starts && (starts.at(-1) as number) >= from;
  }

  /**
   * Length of the code span that opens at `at` and closes by `limit`: the backticks from `at`
   * on, some text, then a run of as many backticks (as marked's `code` rule on the text from
   * `at` to `limit`). 0 when it does not close.
   */
  spanLength(at: number, limit: number): number {
    let end = at;
    while (end < limit && this.src.charCodeAt(end) === 96) end++;
    const starts = this.byLength.get(end - at);
    if (!starts || end === limit) return 0;
    const closer = starts[firstAtLeast(starts, end + 1)];
    return closer !== undefined && closer + (end - at) <= limit ? closer + (end - at) - at : 0;
  }
}

/** Index of the first element at least `value` in ascending `values` (its length if none). */
function firstAtLeast(values: readonly number[], value: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((values[mid] as number) < value) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The runs of one delimiter character (`*`, `_` or `~`) of a masked inline run, each classified
 * as marked's closer rule reads it when it scans for a closer: opening only, closing only, both
 * or neither. (The rule reads a run with the character before it, so every scan that reaches a
 * run reads it alike; only a scan's first match can differ, see `skipsAt`.)
 *
 * An opener's scan keeps a count: openers add their length, closers subtract theirs, and the
 * first closer that brings it to 0 ends the span. With the counts as prefix sums, the first
 * such closer is the first later prefix at or below a bound, found in a tree of minimums.
 */
export class DelimiterRuns {
  readonly starts: number[] = [];
  readonly lengths: number[] = [];
  readonly kinds: number[] = [];
  private readonly walks = new Map<Weights, { prefix: Int32Array; minimums: Minimums }>();
  private readonly breaks = new Map<number, number[]>();

  constructor(masked: string, char: string, closers: RegExp) {
    for (let start = masked.indexOf(char); start !== -1; ) {
      let end = start + 1;
      while (masked[end] === char) end++;
      this.starts.push(start);
      this.lengths.push(end - start);
      this.kinds.push(classify(masked, start, closers));
      start = masked.indexOf(char, end);
    }
  }

  /** Index of the run holding `position`, or -1. */
  indexAt(position: number): number {
    const index = firstAtLeast(this.starts, position + 1) - 1;
    return index >= 0 && position < (this.starts[index] as number) + (this.lengths[index] as number) ? index : -1;
  }

  /** The first run from `first` on after which `count` plus the weights of the runs from `first` to it is 0 or less, or -1. */
  firstBalanced(weights: Weights, first: number, count: number): number {
    let walk = this.walks.get(weights);
    if (!walk) {
      const prefix = new Int32Array(this.kinds.length + 1);
      for (let i = 0; i < this.kinds.length; i++) {
        prefix[i + 1] = (prefix[i] as number) + weights(this.kinds[i] as number, this.lengths[i] as number);
      }
      walk = { prefix, minimums: new Minimums(prefix) };
      this.walks.set(weights, walk);
    }
    const end = walk.minimums.firstAtMost(first + 1, (walk.prefix[first] as number) - count);
    return end === -1 ? -1 : end - 1;
  }

  /** The first run from `first` on that opens and closes and whose length plus `remainder` is a multiple of 3. */
  nextBoth(remainder: number, first: number): number {
    let runs = this.breaks.get(remainder);
    if (!runs) {
      runs = [];
      for (let i = 0; i < this.kinds.length; i++) {
        if (this.kinds[i] === BOTH && (remainder + (this.lengths[i] as number)) % 3 === 0) runs.push(i);
      }
      this.breaks.set(remainder, runs);
    }
    return runs[firstAtLeast(runs, first)] ?? -1;
  }
}

/** What a delimiter run adds to an opener's count (negative: it closes), by its kind and length. */
export type Weights = (kind: number, length: number) => number;

const emphasisWeights: Weights[] = [];
/**
 * Weights for an emphasis opener: by CommonMark rules 9 and 10 a closer whose length, with the
 * opener run's, is a multiple of 3 is passed over (`remainder`: the opener run's length mod 3).
 */
export function emphasisWeightsFor(remainder: number, openerCanClose: boolean): Weights {
  const key = remainder * 2 + (openerCanClose ? 1 : 0);
  let weights = emphasisWeights[key];
  if (!weights) {
    const ofThree = (length: number) => remainder !== 0 && (remainder + length) % 3 === 0;
    weights = (kind, length) => {
      if (kind === OPENS) return length;
      if (kind === NONE || ((kind === BOTH || openerCanClose) && ofThree(length))) return 0;
      return -length;
    };
    emphasisWeights[key] = weights;
  }
  return weights;
}

/** Weights for a strikethrough opener of `length` tildes: only runs of its length count. */
export const strikeWeights: Record<number, Weights> = Object.fromEntries(
  [1, 2].map((own) => [
    own,
    (kind: number, length: number) => (length !== own || kind === NONE ? 0 : kind === OPENS ? length : -length),
  ]),
);

function classify(masked: string, start: number, closers: RegExp): number {
  if (start === 0) return NONE; // no character before it: no scan window starts this early
  const low = masked.charCodeAt(start - 1);
  const before = start >= 2 && low >= 0xdc00 && low <= 0xdfff && isHighSurrogate(masked.charCodeAt(start - 2)) ? 2 : 1;
  closers.lastIndex = start - before;
  const match = closers.exec(masked);
  if (!match || match.index !== start - before) return NONE;
  if (match[3] || match[4]) return OPENS;
  if (match[5] || match[6]) return BOTH;
  return match[1] || match[2] ? CLOSES : NONE;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** Minimums of an array in blocks of 32, and a tree over those, for `firstAtMost`. */
class Minimums {
  private static readonly BLOCK = 32;
  private readonly size: number;
  private readonly tree: Int32Array;

  constructor(private readonly values: Int32Array) {
    const blocks = Math.ceil(values.length / Minimums.BLOCK);
    let size = 1;
    while (size < blocks) size *= 2;
    this.size = size;
    this.tree = new Int32Array(2 * size).fill(0x7fffffff);
    for (let i = 0; i < values.length; i++) {
      const leaf = size + Math.floor(i / Minimums.BLOCK);
      this.tree[leaf] = Math.min(this.tree[leaf] as number, values[i] as number);
    }
    for (let node = size - 1; node >= 1; node--) {
      this.tree[node] = Math.min(this.tree[2 * node] as number, this.tree[2 * node + 1] as number);
    }
  }

  /** The first index at or after `from` whose value is at most `bound`, or -1. */
  firstAtMost(from: number, bound: number): number {
    const { values } = this;
    const blockEnd = Math.min(values.length, (Math.floor(from / Minimums.BLOCK) + 1) * Minimums.BLOCK);
    for (let i = from; i < blockEnd; i++) if ((values[i] as number) <= bound) return i;
    const block = this.firstBlock(1, 0, this.size - 1, Math.floor(from / Minimums.BLOCK) + 1, bound);
    if (block === -1) return -1;
    for (let i = block * Minimums.BLOCK; ; i++) if ((values[i] as number) <= bound) return i;
  }

  private firstBlock(node: number, low: number, high: number, from: number, bound: number): number {
    if (high < from || (this.tree[node] as number) > bound) return -1;
    if (low === high) return low;
    const mid = (low + high) >> 1;
    const left = this.firstBlock(2 * node, low, mid, from, bound);
    return left !== -1 ? left : this.firstBlock(2 * node + 1, mid + 1, high, from, bound);
  }
}

// ---------------------------------------------------------------------------------------------
// Links

/** A link's destination and title as marked's link rule matches them: cap[2], cap[3], the end. */
interface LinkTail {
  href: [number, number];
  title?: [number, number];
  end: number;
}

const LINK_SPACE = new Set([" ", "\t", "\n"]);

/**
 * What marked's link rule finds after `[label](`, looked up instead of scanned. Its destination
 * is `<…>`, or the longest run of non-space characters that a `)` (maybe after a title) follows,
 * and its paren check walks the destination; both ran to the end of a long run of non-space
 * characters at every link opener in it.
 */
export class LinkScan {
  /** 1 where a character is escaped by the backslash before it. */
  private readonly escaped: Uint8Array;
  /** Unescaped `(` minus `)` before each position. */
  private readonly depth: Int32Array;
  /** The first later position whose depth is lower than each position's. */
  private readonly lower: Int32Array;
  private readonly tails = new Map<number, LinkTail | null>();
  private readonly spaceEnds = new Map<number, number>();
  private readonly lastParens = new Map<number, number>();
  private stretch = { from: 0, end: -1 };

  constructor(
    private readonly src: string,
    private readonly backticks: BacktickRuns,
  ) {
    const n = src.length;
    this.escaped = new Uint8Array(n + 1);
    this.depth = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) {
      const ch = src[i];
      let step = 0;
      if (ch === "\\" && !this.escaped[i] && i + 1 < n) this.escaped[i + 1] = 1;
      else if (!this.escaped[i]) step = ch === "(" ? 1 : ch === ")" ? -1 : 0;
      this.depth[i + 1] = (this.depth[i] as number) + step;
    }
    this.lower = new Int32Array(n + 1);
    const stack: number[] = [];
    for (let i = n; i >= 0; i--) {
      while (stack.length > 0 && (this.depth[stack.at(-1) as number] as number) >= (this.depth[i] as number))
        stack.pop();
      this.lower[i] = stack.length > 0 ? (stack.at(-1) as number) : n + 1;
      stack.push(i);
    }
  }

  isEscaped(at: number): boolean {
    return this.escaped[at] === 1;
  }

  /** marked's findClosingBracket(src.slice(from, to), "()"): the first unmatched `)`, -2 if `(` stay open. */
  closingParen(from: number, to: number): number {
    const lower = this.lower[from] as number;
    if (lower <= to) return lower - 1 - from;
    return (this.depth[to] as number) - (this.depth[from] as number) > 0 ? -2 : -1;
  }

  /**
   * marked's link rule at `at` (`!?[label](destination "title")`), as its match would read:
   * [raw, label, destination, title?], and where the destination starts; or null.
   */
  match(at: number): { cap: string[]; hrefStart: number } | null {
    const { src } = this;
    const open = src[at] === "!" ? at + 1 : at;
    if (src[open] !== "[") return null;
    for (const labelEnd of this.labelEnds(open + 1)) {
      const tail = this.tail(labelEnd + 2);
      if (!tail) continue;
      const cap = [src.slice(at, tail.end), src.slice(open + 1, labelEnd), src.slice(...tail.href)];
      if (tail.title) cap.push(src.slice(...tail.title));
      return { cap, hrefStart: tail.href[0] };
    }
    return null;
  }

  /**
   * Where the label can end (each a `]` before `(`), in the order the rule's backtracking tries
   * them. A label holds bracket pairs two deep, escapes, code spans (a backtick run and the next
   * one) and other characters; the first `]` outside those ends it. A run of two or more
   * backticks before `](` can instead end the label, which the rule tries last, latest first.
   */
  private labelEnds(from: number): number[] {
    const { src } = this;
    const endings: number[] = [];
    let end = -1;
    for (let at = from; at < src.length; ) {
      const ch = src[at];
      if (ch === "]") {
        if (src[at + 1] === "(") end = at;
        break;
      }
      if (ch === "[") {
        const close = bracketsEnd(src, at);
        if (close === -1) break;
        at = close + 1;
      } else if (ch === "\\") {
        if (at + 1 >= src.length) break;
        at += 2;
      } else if (ch === "`") {
        let runEnd = at + 1;
        while (src.charCodeAt(runEnd) === 96) runEnd++;
        if (runEnd - at >= 2 && src[runEnd] === "]" && src[runEnd + 1] === "(") endings.push(runEnd);
        const next = src.indexOf("`", runEnd);
        if (next === -1) break;
        at = next + 1;
        while (src.charCodeAt(at) === 96) at++;
      } else {
        at++;
      }
    }
    return end === -1 ? endings.reverse() : [end, ...endings.reverse()];
  }

  /** The rule after `(`: spaces, destination, maybe a title, spaces, `)`. */
  private tail(from: number): LinkTail | null {
    let tail = this.tails.get(from);
    if (tail === undefined) {
      tail = this.readTail(from);
      this.tails.set(from, tail);
    }
    return tail;
  }

  private readTail(from: number): LinkTail | null {
    const { src } = this;
    const start = this.skip(from, LINK_SPACE);
    const first = src[start];
    if (first === undefined) return null;
    if (first === "<") {
      // <…>: escapes (not of a line break) and anything but a line break or angle bracket.
      for (let at = start + 1; at < src.length; at++) {
        const ch = src[at];
        if (ch === ">") {
          const end = this.close(at + 1);
          return end ? { ...end, href: [start, at + 1] } : null;
        }
        if (ch === "\n" || ch === "<") return null;
        if (ch === "\\") {
          if (at + 1 >= src.length || /[\n\r\u2028\u2029]/.test(src[at + 1] as string)) return null;
          at++;
        }
      }
      return null;
    }
    if (!isLinkControl(first)) {
      // The longest run of non-space characters that ends the link, else the longest before a `)`.
      const end = this.stretchEnd(start);
      const close = this.close(end);
      if (close) return { ...close, href: [start, end] };
      const paren = this.lastParen(start, end);
      if (paren > start) return { href: [start, paren], end: paren + 1 };
    }
    return first === ")" ? { href: [start, start], end: start + 1 } : null;
  }

  /** After a destination: maybe a title, then spaces and `)`. */
  private close(from: number): Omit<LinkTail, "href"> | null {
    const { src } = this;
    let at = from;
    if (src[at] === " " || src[at] === "\t") {
      at = this.skip(at, new Set([" ", "\t"]));
      if (src[at] === "\n") at = this.skip(at + 1, new Set([" ", "\t"]));
    } else if (src[at] === "\n") {
      at = this.skip(at + 1, new Set([" ", "\t"]));
    }
    const quote = src[at];
    if (at > from && (quote === '"' || quote === "'" || quote === "(")) {
      const titleEnd = this.unescaped(quote === "(" ? ")" : quote, at + 1);
      if (titleEnd !== -1) {
        const after = this.skip(titleEnd + 1, LINK_SPACE);
        if (src[after] === ")") return { title: [at, titleEnd + 1], end: after + 1 };
      }
    }
    const after = this.skip(from, LINK_SPACE);
    return src[after] === ")" ? { end: after + 1 } : null;
  }

  /** The end of the run of characters in `chars` from `from`, remembered per start. */
  private skip(from: number, chars: ReadonlySet<string>): number {
    const key = chars === LINK_SPACE ? from : -from - 1;
    let end = this.spaceEnds.get(key);
    if (end === undefined) {
      end = from;
      while (end < this.src.length && chars.has(this.src[end] as string)) end++;
      this.spaceEnds.set(key, end);
    }
    return end;
  }

  /** The end of the run of non-space, non-control characters from `from` (queries move forward). */
  private stretchEnd(from: number): number {
    if (from >= this.stretch.from && from < this.stretch.end) return this.stretch.end;
    let end = from;
    while (end < this.src.length && !isLinkControl(this.src[end] as string)) end++;
    this.stretch = { from, end };
    return end;
  }

  /** The last `)` in [from, end), where `end` ends a run of non-space characters. */
  private lastParen(from: number, end: number): number {
    let paren = this.lastParens.get(end);
    if (paren === undefined) {
      paren = this.src.lastIndexOf(")", end - 1);
      this.lastParens.set(end, paren);
    }
    return paren >= from ? paren : -1;
  }

  /** The first unescaped `char` at or after `from`, or -1. */
  private unescaped(char: string, from: number): number {
    let at = this.src.indexOf(char, from);
    while (at !== -1 && this.escaped[at]) at = this.src.indexOf(char, at + 1);
    return at;
  }

  /** See BacktickRuns.spanLength. */
  codeSpanLength(at: number, limit: number): number {
    return this.backticks.spanLength(at, limit);
  }
}

const isLinkControl = (ch: string) => ch === " " || ch === "\t" || ch === "\n" || ch.charCodeAt(0) < 0x20;

/** The `]` that closes the bracket pair opening at `at` (pairs nest two deep), or -1. */
function bracketsEnd(src: string, at: number): number {
  let depth = 0;
  for (let i = at + 1; i < src.length; i++) {
    const ch = src[i];
    if (ch === "\\") {
      if (i + 1 >= src.length) return -1;
      i++;
    } else if (ch === "[") {
      if (depth === 1) return -1;
      depth = 1;
    } else if (ch === "]") {
      if (depth === 0) return i;
      depth = 0;
    }
  }
  return -1;
}
