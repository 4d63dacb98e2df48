import { describe, expect, it } from "vitest";
import type { ContentItem } from "../../../src/services/content/editor-content";
import { validateContent } from "../../../src/services/content/editor-content";
import { contentToMarkdown, markdownToContent, normalizeContent } from "../../../src/services/content/markdown";
import { MAX_MARKDOWN_NESTING, MarkdownNestingError } from "../../../src/services/content/markdown-tokens";
import { EVERY_TYPE } from "./fixtures";
import { randomContent, seeded } from "./random-content";

const roundTrip = (items: ContentItem[]) => markdownToContent(contentToMarkdown(items));

describe("contentToMarkdown", () => {
  it("writes each type in its markdown form", () => {
    const markdown = contentToMarkdown([
      { type: "heading-1", children: [{ text: "One" }] },
      { type: "heading-2", children: [{ text: "Two" }] },
      { type: "heading-3", children: [{ text: "Three" }] },
      {
        type: "paragraph",
        children: [
          { text: "Mix " },
          { text: "b", bold: true },
          { text: " " },
          { text: "i", italic: true },
          { text: " " },
          { text: "c", code: true },
          { text: " " },
          { text: "s", strikethrough: true },
          { text: " " },
          { text: "l", link: "https://x.y" },
        ],
      },
      { type: "bulleted-list", children: [{ text: "bullet" }] },
      { type: "bulleted-list", children: [{ text: "nested" }], indent: 1 },
      { type: "numbered-list", children: [{ text: "first" }] },
      { type: "numbered-list", children: [{ text: "second" }] },
      { type: "to_do", children: [{ text: "open" }], checked: false },
      { type: "to_do", children: [{ text: "done" }], checked: true },
      { type: "quote", children: [{ text: "quoted" }] },
      { type: "callout", children: [{ text: "note" }], icon: "💡" },
      { type: "code", children: [{ text: "let x = 1;" }], language: "js" },
      { type: "divider", children: [{ text: "" }] },
      {
        type: "toggle",
        children: [{ text: "More" }],
        content: [{ type: "paragraph", children: [{ text: "hidden" }] }],
      },
      {
        type: "table",
        children: [{ text: "" }],
        rows: [
          ["h1", "h2"],
          ["a", "b"],
        ],
        has_header: true,
      },
      { type: "image", url: "https://x.y/i.png", children: [{ text: "pic" }] },
      { type: "video", url: "https://x.y/v.mp4", children: [{ text: "clip" }] },
      { type: "audio", url: "https://x.y/a.mp3", children: [{ text: "" }] },
      { type: "embed", url: "https://x.y/e", children: [{ text: "map" }] },
    ]);
    expect(markdown).toBe(`# One

## Two

### Three

Mix **b** *i* \`c\` ~~s~~ [l](https://x.y)

- bullet
  - nested
1. first
2. second
- [ ] open
- [x] done

> quoted

> [!NOTE]
> 💡
>
> note

\`\`\`js
let x = 1;
\`\`\`

---

<details>
<summary>More</summary>

hidden

</details>

| h1 | h2 |
| --- | --- |
| a | b |

![pic](https://x.y/i.png)

[clip](https://x.y/v.mp4 "video")

[](https://x.y/a.mp3 "audio")

[map](https://x.y/e "embed")
`);
  });

  it("renders the title as a leading heading that is not part of the content", () => {
    const items: ContentItem[] = [{ type: "paragraph", children: [{ text: "Body" }] }];
    expect(contentToMarkdown(items, { title: "My *page*" })).toBe("# My \\*page\\*\n\nBody\n");
    expect(contentToMarkdown(items)).toBe("Body\n");
    expect(contentToMarkdown([], { title: "Only" })).toBe("# Only\n");
    expect(contentToMarkdown([])).toBe("");
  });

  it("escapes text that would otherwise be markdown", () => {
    const markdown = contentToMarkdown([
      { type: "paragraph", children: [{ text: "# not a heading" }] },
      { type: "paragraph", children: [{ text: "1. not a list *nor emphasis*" }] },
      { type: "paragraph", children: [{ text: "<script>alert(1)</script>" }] },
    ]);
    expect(markdown).toBe("\\# not a heading\n\n1\\. not a list \\*nor emphasis\\*\n\n\\<script>alert(1)\\</script>\n");
  });

  it("numbers each nested list afresh and nests under wider markers", () => {
    const items: ContentItem[] = Array.from({ length: 10 }, (_, i) => ({
      type: "numbered-list",
      children: [{ text: `n${i + 1}` }],
    }));
    items.push({ type: "numbered-list", children: [{ text: "child" }], indent: 1 });
    expect(contentToMarkdown(items)).toContain("10. n10\n    1. child\n");
  });

  it("clamps an indent that jumps more than one level", () => {
    const markdown = contentToMarkdown([
      { type: "bulleted-list", children: [{ text: "a" }], indent: 2 },
      { type: "bulleted-list", children: [{ text: "b" }], indent: 4 },
    ]);
    expect(markdown).toBe("- a\n  - b\n");
  });

  it("falls back to inline HTML where delimiters would be misread", () => {
    const items: ContentItem[] = [
      { type: "paragraph", children: [{ text: "foo" }, { text: "(bar)", bold: true }, { text: "baz" }] },
    ];
    const markdown = contentToMarkdown(items);
    expect(markdown).toBe("foo<strong>(bar)</strong>baz\n");
    expect(markdownToContent(markdown)).toEqual(items);
  });
});

describe("markdown round trip", () => {
  it("content → markdown → content gives the same (normalised) items for every type", () => {
    expect(roundTrip(EVERY_TYPE)).toEqual(normalizeContent(EVERY_TYPE));
    // The fixture is already in normal form, so nothing was lost on the way.
    expect(normalizeContent(EVERY_TYPE)).toEqual(EVERY_TYPE);
  });

  it("markdown → content → markdown gives the same markdown", () => {
    const markdown = contentToMarkdown(EVERY_TYPE);
    expect(contentToMarkdown(markdownToContent(markdown))).toBe(markdown);
  });

  it("the parsed content is valid canonical content", () => {
    expect(() => validateContent(markdownToContent(contentToMarkdown(EVERY_TYPE)))).not.toThrow();
  });

  it("keeps line breaks, leading/trailing spaces and empty paragraphs", () => {
    const items: ContentItem[] = [
      { type: "paragraph", children: [{ text: "  indented\n\nafter a blank line\n" }] },
      { type: "paragraph", children: [{ text: "" }] },
      { type: "paragraph", children: [{ text: "\n" }] },
      { type: "heading-2", children: [{ text: "two\nlines " }] },
      { type: "bulleted-list", children: [{ text: "" }] },
      { type: "to_do", children: [{ text: "" }], checked: true },
      { type: "callout", children: [{ text: "" }], icon: "⚠️" },
      { type: "code", children: [{ text: "" }] },
      { type: "code", children: [{ text: "trailing newline\n" }] },
      {
        type: "table",
        children: [{ text: "" }],
        rows: [
          ["", ""],
          [" x ", ""],
        ],
        has_header: true,
      },
    ];
    expect(roundTrip(items)).toEqual(items);
  });

  it("holds for a few hundred generated documents with awkward text", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const items = normalizeContent(randomContent(seed));
      const markdown = contentToMarkdown(items);
      const parsed = markdownToContent(markdown);
      expect(normalizeContent(parsed), `seed ${seed}`).toEqual(items);
      expect(contentToMarkdown(parsed), `seed ${seed}`).toBe(markdown);
    }
  });
});

describe("markdownToContent", () => {
  it("reads common markdown written elsewhere", () => {
    const items = markdownToContent(`#### Deep heading

* star bullet
    * nested four spaces
3) paren numbered

> [!WARNING]
> Careful

~~~python
print(1)
~~~

Visit https://example.com &copy; 2024 &amp; more

| a | b |
|---|---|
| 1 |

![](https://x.y/p.png) ![second](https://x.y/q.png)
`);
    expect(items).toEqual([
      { type: "heading-3", children: [{ text: "Deep heading" }] },
      { type: "bulleted-list", children: [{ text: "star bullet" }] },
      { type: "bulleted-list", children: [{ text: "nested four spaces" }], indent: 1 },
      { type: "numbered-list", children: [{ text: "paren numbered" }] },
      { type: "callout", children: [{ text: "Careful" }] },
      { type: "code", children: [{ text: "print(1)" }], language: "python" },
      { type: "paragraph", children: [{ text: "Visit https://example.com © 2024 & more" }] },
      {
        type: "table",
        children: [{ text: "" }],
        rows: [
          ["a", "b"],
          ["1", ""],
        ],
        has_header: true,
      },
      { type: "image", url: "https://x.y/p.png", children: [{ text: "" }] },
      { type: "image", url: "https://x.y/q.png", children: [{ text: "second" }] },
    ]);
  });

  it("keeps blocks nested in list items and quotes as items of their own", () => {
    expect(markdownToContent("- item\n\n  ```\n  code\n  ```\n\n> quoted\n>\n> ## heading")).toEqual([
      { type: "bulleted-list", children: [{ text: "item" }] },
      { type: "code", children: [{ text: "code" }] },
      { type: "quote", children: [{ text: "quoted" }] },
      { type: "heading-2", children: [{ text: "heading" }] },
    ]);
  });

  it("reads nested toggles and closes an unclosed one at the end", () => {
    expect(
      markdownToContent("<details>\n<summary>Outer</summary>\n\n<details>\n<summary>Inner</summary>\n\ntext"),
    ).toEqual([
      {
        type: "toggle",
        children: [{ text: "Outer" }],
        content: [
          {
            type: "toggle",
            children: [{ text: "Inner" }],
            content: [{ type: "paragraph", children: [{ text: "text" }] }],
          },
        ],
      },
    ]);
  });

  it("reads task markers from the text of a list item's first paragraph", () => {
    expect(markdownToContent("- [x] done\n- [X] up\n1. [ ] numbered\n- [ ]\n- \\[ ] escaped\n\n[x]: /u")).toEqual([
      // A definition named `x` does not turn the box into a link.
      { type: "to_do", children: [{ text: "done" }], checked: true },
      { type: "to_do", children: [{ text: "up" }], checked: true },
      { type: "to_do", children: [{ text: "numbered" }], checked: false },
      // A box with nothing after it is no task.
      { type: "bulleted-list", children: [{ text: "[ ]" }] },
      { type: "bulleted-list", children: [{ text: "[ ] escaped" }] },
    ]);
  });

  it("reads markdown as CommonMark with GFM tables and strikethrough", () => {
    expect(markdownToContent("~~two~~ ~one~ &hearts; &nbsp;| https://x.y\n\na | b\n:- | -:\n1 | 2 | 3")).toEqual([
      {
        type: "paragraph",
        // Strikethrough takes two tildes; every HTML5 entity is read; a bare URL is no link.
        children: [{ text: "two", strikethrough: true }, { text: " ~one~ ♥ \u00a0| https://x.y" }],
      },
      {
        type: "table",
        children: [{ text: "" }],
        rows: [
          ["a", "b"],
          ["1", "2"],
        ],
        has_header: true,
      },
    ]);
  });

  it("keeps link destinations as written, whatever their scheme", () => {
    expect(markdownToContent("[a](javascript:void(0)) [b](https://bücher.de/a%20b?c&amp;d) <file:///x>")).toEqual([
      {
        type: "paragraph",
        children: [
          { text: "a", link: "javascript:void(0)" },
          { text: " " },
          // Entities are read (CommonMark); nothing is percent-encoded or punycoded.
          { text: "b", link: "https://bücher.de/a%20b?c&d" },
          { text: " " },
          { text: "file:///x", link: "file:///x" },
        ],
      },
    ]);
  });

  it("round-trips entity-like text in links, images and code languages", () => {
    const items: ContentItem[] = [
      { type: "paragraph", children: [{ text: "&amp; &#32;", link: "https://x.y/?a&amp;b=&#32;" }] },
      { type: "image", url: "https://x.y/&lt;i&gt;.png", children: [{ text: "&copy;" }] },
      { type: "code", children: [{ text: "&amp;" }], language: "a&amp;b" },
    ];
    expect(roundTrip(items)).toEqual(items);
  });

  it(`reads blocks nested up to ${MAX_MARKDOWN_NESTING} levels and refuses deeper ones`, () => {
    // A quote is one level, a list two (the list and its item).
    const quotes = (depth: number) => `${"> ".repeat(depth)}x`;
    const list = (depth: number) => Array.from({ length: depth }, (_, i) => `${"  ".repeat(i)}- x${i}`).join("\n");
    expect(markdownToContent(quotes(MAX_MARKDOWN_NESTING - 1)).at(-1)).toEqual({
      type: "quote",
      children: [{ text: "x" }],
    });
    expect(markdownToContent(list(MAX_MARKDOWN_NESTING / 2 - 1)).at(-1)).toMatchObject({ indent: 6 });
    expect(() => markdownToContent(quotes(MAX_MARKDOWN_NESTING))).toThrow(MarkdownNestingError);
    expect(() => markdownToContent(list(MAX_MARKDOWN_NESTING / 2))).toThrow(MarkdownNestingError);
    // A RangeError, which the pages routes answer with a 400.
    expect(new MarkdownNestingError()).toBeInstanceOf(RangeError);
  });

  it("keeps unknown HTML as text and drops comments", () => {
    expect(markdownToContent("<div>hi</div>\n\n<!-- note -->\n\nafter")).toEqual([
      { type: "paragraph", children: [{ text: "<div>hi</div>" }] },
      { type: "paragraph", children: [{ text: "after" }] },
    ]);
  });

  it("never throws and always yields valid content for random markdown", () => {
    const pieces = [
      "\n",
      "\n\n",
      "- ",
      "1. ",
      "> ",
      "```",
      "<details>",
      "</details>",
      "| a |\n| - |\n",
      "# ",
      "**",
      "_",
      "`",
      "[x](y)",
      "![a](b)",
      "[!NOTE]",
      "<br>",
      "&amp;",
      "[ ] ",
      "text ",
      "\\",
      "    ",
      "---",
      "<!-- c -->",
    ];
    for (let seed = 1; seed <= 300; seed++) {
      const { next, pick } = seeded(seed);
      const markdown = Array.from({ length: 1 + Math.floor(next() * 25) }, () => pick(pieces)).join("");
      const items = markdownToContent(markdown);
      expect(() => validateContent(items), markdown).not.toThrow();
      const normal = normalizeContent(items);
      expect(normalizeContent(roundTrip(normal)), markdown).toEqual(normal);
    }
  });
});

describe("normalizeContent", () => {
  it("moves edge whitespace out of bold/italic/strikethrough, merges spans and drops unknown keys", () => {
    const [item] = normalizeContent([
      {
        type: "paragraph",
        children: [
          { text: "a " },
          { text: " bold ", bold: true },
          { text: "more", bold: true, italic: false },
          { text: "", italic: true },
        ],
        id: "x",
      } as ContentItem,
    ]);
    expect(item).toEqual({
      type: "paragraph",
      children: [{ text: "a  " }, { text: "bold more", bold: true }],
    });
  });
});
