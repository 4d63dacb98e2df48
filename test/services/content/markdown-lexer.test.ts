import { Marked, type Token } from "marked";
import { describe, expect, it } from "vitest";
import { lexMarkdown, MAX_MARKDOWN_NESTING } from "../../../src/services/content/markdown-lexer";
import { seeded } from "./random-content";

// marked as it is, with the same options: the linear lexer must give the same tokens.
const marked = new Marked({ gfm: true });
marked.use({ tokenizer: { url: () => undefined } });

/**
 * Tokens as JSON, without the definitions map. marked turns a bare `&` of a text token into
 * `&amp;` when the token holds a numeric character reference; the linear lexer joins text
 * tokens differently, so that `&` may differ. Both read back as `&` (see decodeEntities).
 */
const json = (tokens: Token[]) =>
  JSON.stringify(tokens, function (this: { type?: unknown }, key, value) {
    if (key === "links") return undefined;
    return key === "text" && this?.type === "text" && typeof value === "string"
      ? value.replaceAll("&amp;", "&")
      : value;
  });

const lexBoth = (markdown: string) => {
  const outcome = (lex: () => Token[]) => {
    try {
      return json(lex());
    } catch (error) {
      return `throws ${(error as Error).message}`;
    }
  };
  return [outcome(() => lexMarkdown(markdown)), outcome(() => marked.lexer(markdown))];
};

// Pieces that mean something to the rules the linear lexer replaces.
const PIECES = {
  emphasis: [
    "*",
    "**",
    "***",
    "_",
    "__",
    "~",
    "~~",
    "a",
    "b",
    " ",
    ".",
    "!",
    "(",
    ")",
    "\\",
    "`",
    "<b>",
    "é",
    "😀",
    "\n",
    "-",
    "&",
  ],
  links: [
    "[",
    "]",
    "(",
    ")",
    "<",
    ">",
    "\\",
    "`",
    "``",
    '"',
    "'",
    "a",
    " ",
    "\n",
    "\t",
    "!",
    "](",
    "[a]: /u\n",
    "*",
    "_",
  ],
  html: [
    "<!--",
    "-->",
    "<?",
    "?>",
    "<!A ",
    "<![CDATA[",
    "]]>",
    '<a href="x">',
    "</a>",
    "a",
    " ",
    "*",
    "`",
    "\\",
    "&#40;",
    "[",
  ],
  blocks: [
    "- ",
    "1. ",
    "> ",
    "a",
    "b",
    "\n",
    "\n\n",
    "  ",
    "    ",
    "=",
    "---",
    "# ",
    "```",
    "| a |",
    "|-|",
    "<div>",
    "[x]: y",
    "*",
    "[ ] ",
  ],
};

describe("lexMarkdown", () => {
  it.each(Object.keys(PIECES) as (keyof typeof PIECES)[])("gives marked's tokens for random %s", (set) => {
    const { next, pick } = seeded(set.length * 7919);
    for (let run = 0; run < 2000; run++) {
      let markdown = "";
      for (let length = Math.floor(next() * 60); length > 0; length--) markdown += pick(PIECES[set]);
      const [linear, original] = lexBoth(markdown);
      if (linear !== original) expect({ markdown, linear }).toEqual({ markdown, linear: original });
    }
  });

  it.each([
    "*a **b* c** _d __e_ f__ ~~g~ h~",
    "**a*b*c** `x` ``y`` ```z``` \\*no\\* <b>bold</b>",
    "[a](b) [a](<b c>) [a](b 'c') [a](b (c)) [a]( b)c) [a](b\\)) ![i](j) [`]`](x) [a``](b)",
    "[x]\n\n[x]: /url\n[y][x] [x][] [*z*][x]",
    '<!-- c --> <?p ?> <!D x> <![CDATA[x]]> <a href="x">t</a> <!-- open',
    "- a\nb\n  c\n- [ ] d\n\n  e\n> - f\n> g",
    "a\n|b|\n|-|-|\nc\n===\nd\n---",
  ])("gives marked's tokens for %j", (markdown) => {
    const [linear, original] = lexBoth(markdown);
    expect(linear).toBe(original);
  });

  it(`reads nesting deeper than ${MAX_MARKDOWN_NESTING} levels as text`, () => {
    const deep = (open: string, close = "") =>
      `${open.repeat(MAX_MARKDOWN_NESTING + 4)}x${close.repeat(MAX_MARKDOWN_NESTING + 4)}`;
    for (const markdown of [deep("> "), deep("- "), deep("*a ", " a*"), deep("[a ", "](u)")]) {
      const text = JSON.stringify(lexMarkdown(markdown));
      expect(text).toContain("x");
    }
    const shallow = `${"> ".repeat(MAX_MARKDOWN_NESTING - 1)}x`;
    expect(lexBoth(shallow)[0]).toBe(lexBoth(shallow)[1]);
  });
});
