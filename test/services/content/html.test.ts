import { describe, expect, it } from "vitest";
import type { ContentItem } from "../../../src/services/content/editor-content";
import { contentToHtml } from "../../../src/services/content/html";
import { EVERY_TYPE } from "./fixtures";

/** The part of the document between <article> and </article>. */
const article = (html: string) => html.slice(html.indexOf("<article>") + 9, html.indexOf("</article>")).trim();
const body = (items: ContentItem[]) => article(contentToHtml(items));

describe("contentToHtml", () => {
  it("is a complete standalone document with the title", () => {
    const html = contentToHtml(EVERY_TYPE, { title: "Plan" });
    expect(html.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(html).toContain('<meta charset="utf-8">');
    expect(html).toContain("<title>Plan</title>");
    expect(html).toContain('<h1 class="page-title">Plan</h1>');
    expect(html).toContain("Content-Security-Policy");
    expect(html.trimEnd().endsWith("</html>")).toBe(true);
    expect(contentToHtml([])).toContain("<title>Untitled</title>");
  });

  it("escapes text, title, attributes and code", () => {
    const html = contentToHtml(
      [
        { type: "paragraph", children: [{ text: "<script>alert(1)</script>" }] },
        { type: "code", children: [{ text: "</code><script>x()</script>" }], language: 'x" onload="y' },
        { type: "image", url: 'https://x.y/a.png" onerror="alert(1)', children: [{ text: '"><script>' }] },
        { type: "table", children: [{ text: "" }], rows: [["<b>&"]], has_header: false },
      ],
      { title: "</title><script>alert(2)</script>" },
    );
    expect(html).not.toContain("<script>");
    expect(html).not.toContain('" onerror="');
    expect(html).not.toContain('" onload="');
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("<title>&lt;/title&gt;&lt;script&gt;alert(2)&lt;/script&gt;</title>");
    expect(html).toContain("<td>&lt;b&gt;&amp;</td>");
  });

  it("does not link URLs that could run code", () => {
    const html = body([
      { type: "paragraph", children: [{ text: "click", link: "javascript:alert(1)" }] },
      { type: "paragraph", children: [{ text: "tab", link: "java\tscript:alert(1)" }] },
      { type: "image", url: "data:text/html,<script>alert(1)</script>", children: [{ text: "x" }] },
      { type: "image", url: "data:image/png;base64,AAAA", children: [{ text: "" }] },
      { type: "embed", url: "http://plain.example", children: [{ text: "" }] },
    ]);
    expect(html).not.toContain("javascript");
    expect(html).not.toContain("java\tscript");
    expect(html).toContain("<p>click</p>");
    expect(html).not.toContain('src="data:text/html');
    expect(html).toContain('<img src="data:image/png;base64,AAAA"');
    // Only https is framed; anything else becomes a link.
    expect(html).toContain('<p class="embed"><a href="http://plain.example">http://plain.example</a></p>');
  });

  it("renders each type", () => {
    const html = article(contentToHtml(EVERY_TYPE));
    for (const fragment of [
      "<h1>Project plan</h1>",
      "<h2>Tasks <em>this week</em></h2>",
      "<h3>C# notes #1</h3>",
      '<p>Plain, <strong>bold</strong>, <em>italic</em>, <code>code</code>, <s>struck</s> and a <a href="https://example.com/a?b=1&amp;c=2">link</a>.</p>',
      "<p>Line one<br>Line two</p>",
      "<blockquote><p>A quote with <em>emphasis</em></p></blockquote>",
      '<aside class="callout"><span class="callout-icon" aria-hidden="true">💡</span><div>Callout text</div></aside>',
      '<pre><code class="language-ts">const x = `y`;\nif (a &lt; b) {',
      "<hr>",
      "<details>\n<summary><strong>Details</strong> &lt;open&gt;</summary>\n<p>Inside the toggle</p>\n<details>",
      "<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>a | b</td>",
      "<table><tbody><tr><td>x</td><td>y</td></tr></tbody></table>",
      '<figure><img src="https://example.com/cat.png" alt="A cat [photo]"><figcaption>A cat [photo]</figcaption></figure>',
      '<video controls preload="metadata" src="https://example.com/v.mp4">',
      '<audio controls preload="metadata" src="https://example.com/a.mp3">',
      '<iframe src="https://example.com/embed?x=(1) y" title="Map"',
    ]) {
      expect(html).toContain(fragment);
    }
  });

  it("groups consecutive list items into nested lists", () => {
    expect(
      body([
        { type: "bulleted-list", children: [{ text: "a" }] },
        { type: "bulleted-list", children: [{ text: "a1" }], indent: 1 },
        { type: "numbered-list", children: [{ text: "a1i" }], indent: 2 },
        { type: "bulleted-list", children: [{ text: "b" }] },
        { type: "numbered-list", children: [{ text: "one" }] },
        { type: "numbered-list", children: [{ text: "two" }] },
        { type: "paragraph", children: [{ text: "break" }] },
        { type: "to_do", children: [{ text: "task" }], checked: true },
      ]),
    ).toBe(
      "<ul><li>a<ul><li>a1<ol><li>a1i</li></ol></li></ul></li><li>b</li></ul><ol><li>one</li><li>two</li></ol>\n" +
        "<p>break</p>\n" +
        '<ul class="todo"><li class="todo checked"><input type="checkbox" disabled checked> <span>task</span></li></ul>',
    );
  });

  it("renders an empty paragraph as a visible blank line and a toggle without content", () => {
    expect(
      body([
        { type: "paragraph", children: [{ text: "" }] },
        { type: "toggle", children: [{ text: "t" }] },
      ]),
    ).toBe("<p><br></p>\n<details>\n<summary>t</summary>\n</details>");
  });
});
