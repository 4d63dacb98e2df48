import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/lib/errors";
import {
  CANONICAL_CONTENT_TYPES,
  type ContentIssue,
  ContentSchema,
  contentText,
  validateContent,
} from "../../../src/services/content/editor-content";
import { EVERY_TYPE } from "./fixtures";

/** The ApiError validateContent throws for `content`. */
function refusal(content: unknown, path?: string): ApiError {
  try {
    validateContent(content, path);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected validateContent to refuse the content");
}

const issues = (content: unknown, path?: string) =>
  (refusal(content, path).details as { issues: ContentIssue[] }).issues;
const issueAt = (content: unknown, path: string) => issues(content).find((issue) => issue.path === path);

describe("validateContent: accepted content", () => {
  it("accepts every canonical type and returns it unchanged", () => {
    expect(validateContent(EVERY_TYPE)).toEqual(EVERY_TYPE);
    const used = new Set(EVERY_TYPE.map((item) => item.type));
    expect([...CANONICAL_CONTENT_TYPES].filter((type) => !used.has(type))).toEqual([]);
  });

  it("accepts each canonical type in its smallest form", () => {
    const minimal = [
      { type: "paragraph" },
      { type: "heading-1", children: [{ text: "a" }] },
      { type: "heading-2", children: [{ text: "a" }] },
      { type: "heading-3", children: [{ text: "a" }] },
      { type: "quote", children: [{ text: "a" }] },
      { type: "bulleted-list", children: [{ text: "a" }], indent: 6 },
      { type: "numbered-list", children: [{ text: "a" }] },
      { type: "to_do", children: [{ text: "a" }] },
      { type: "callout", children: [{ text: "a" }], icon: "💡" },
      { type: "code", children: [{ text: "x" }], language: "ts" },
      { type: "divider" },
      { type: "toggle", children: [{ text: "a" }] },
      { type: "table", rows: [["a"]] },
      { type: "image", url: "https://x/y.png", children: [{ text: "" }] },
      { type: "video", url: "https://x/y.mp4" },
      { type: "audio", url: "https://x/y.mp3" },
      { type: "embed", url: "https://x/y" },
    ];
    const result = validateContent(minimal);
    expect(result.map((item) => item.type).sort()).toEqual([...CANONICAL_CONTENT_TYPES].sort());
  });

  it("fills defaults: children [{text: ''}] when missing or empty, checked false", () => {
    const [paragraph, divider, todo] = validateContent([
      { type: "paragraph", children: [] },
      { type: "divider" },
      { type: "to_do", children: [{ text: "x" }] },
    ]);
    expect(paragraph).toEqual({ type: "paragraph", children: [{ text: "" }] });
    expect(divider).toEqual({ type: "divider", children: [{ text: "" }] });
    expect(todo).toEqual({ type: "to_do", children: [{ text: "x" }], checked: false });
  });

  it("keeps unknown extra keys such as editor ids", () => {
    const [item] = validateContent([{ id: "b1", type: "paragraph", children: [{ text: "x", underline: true }] }]);
    expect(item).toEqual({ id: "b1", type: "paragraph", children: [{ text: "x", underline: true }] });
  });

  it("treats null and undefined as an empty body", () => {
    expect(validateContent(null)).toEqual([]);
    expect(validateContent(undefined)).toEqual([]);
    expect(validateContent([])).toEqual([]);
  });

  it("validates toggle content recursively", () => {
    const [toggle] = validateContent([
      { type: "toggle", children: [{ text: "t" }], content: [{ type: "to_do", children: [{ text: "in" }] }] },
    ]);
    expect(toggle).toEqual({
      type: "toggle",
      children: [{ text: "t" }],
      content: [{ type: "to_do", children: [{ text: "in" }], checked: false }],
    });
  });
});

describe("validateContent: refusals", () => {
  it("is a 400 ApiError with the source path and an issue list", () => {
    const error = refusal([{ type: "text" }]);
    expect(error.status).toBe(400);
    expect(error.message).toContain("content[0].type");
    expect(error.details).toMatchObject({ source: "content", issues: [{ path: "content[0].type" }] });
  });

  it("refuses content that is not an array", () => {
    for (const content of [{}, "hello", 3, true]) {
      expect(issues(content)).toEqual([expect.objectContaining({ path: "content", code: "not_an_array" })]);
    }
  });

  it("refuses items that are not objects, or have no type", () => {
    expect(issueAt([null], "content[0]")).toMatchObject({ code: "not_an_object" });
    expect(issueAt(["text"], "content[0]")).toMatchObject({ code: "not_an_object" });
    expect(issueAt([{ children: [] }], "content[0].type")).toMatchObject({
      code: "missing_type",
      allowed_types: CANONICAL_CONTENT_TYPES,
    });
  });

  it.each([
    ["text", {}, "paragraph"],
    ["heading", {}, "heading-1"],
    ["heading", { level: 1 }, "heading-1"],
    ["heading", { level: 2 }, "heading-2"],
    ["heading", { level: 3 }, "heading-3"],
    ["heading", { props: { level: 2 } }, "heading-2"],
    ["bulletListItem", {}, "bulleted-list"],
    ["bulleted_list_item", {}, "bulleted-list"],
    ["orderedListItem", {}, "numbered-list"],
    ["todo", {}, "to_do"],
    ["checkbox", {}, "to_do"],
  ])("refuses the editor-library type %s %j and names %s", (type, extra, suggested) => {
    const issue = issueAt([{ type: "paragraph" }, { type, children: [{ text: "x" }], ...extra }], "content[1].type");
    expect(issue).toMatchObject({ code: "editor_library_type", suggested_type: suggested });
    expect(issue?.message).toContain(`"${suggested}"`);
  });

  it("refuses unknown types, listing the canonical ones", () => {
    const issue = issueAt([{ type: "blink" }], "content[0].type");
    expect(issue).toMatchObject({ code: "unknown_type", allowed_types: CANONICAL_CONTENT_TYPES });
    for (const type of CANONICAL_CONTENT_TYPES) expect(issue?.message).toContain(type);
  });

  it.each(["image", "video", "audio", "embed"])("refuses %s without a top-level url", (type) => {
    const issue = issueAt([{ type, children: [{ text: "https://x/cat.png" }] }], "content[0].url");
    expect(issue).toMatchObject({ code: "missing_url" });
    expect(issue?.message).toContain('top-level "url"');
    expect(issue?.message).toContain(`empty ${type} widget`);
    // One issue for the url, not a second one from the schema.
    expect(issues([{ type, children: [{ text: "" }] }])).toHaveLength(1);
  });

  it("says where a misplaced image URL was found", () => {
    expect(issueAt([{ type: "image", src: "https://x/y.png" }], "content[0].url")?.message).toContain('found "src"');
    expect(issueAt([{ type: "image", url: 42 }], "content[0].url")).toMatchObject({ code: "missing_url" });
  });

  it("refuses row values in metadata, pointing at properties", () => {
    const issue = issueAt([{ type: "paragraph", metadata: { status: "done" } }], "content[0].metadata");
    expect(issue).toMatchObject({ code: "metadata_not_allowed" });
    expect(issue?.message).toContain("`properties`");
  });

  it("names the exact path of bad spans and fields", () => {
    expect(
      issueAt([{ type: "paragraph", children: [{ text: "a" }, { bold: true }] }], "content[0].children[1].text"),
    ).toBeDefined();
    expect(issueAt([{ type: "paragraph", children: "hello" }], "content[0].children")).toBeDefined();
    expect(
      issueAt([{ type: "paragraph", children: [{ text: "a", bold: "yes" }] }], "content[0].children[0].bold"),
    ).toBeDefined();
    expect(issueAt([{ type: "bulleted-list", indent: 7 }], "content[0].indent")).toBeDefined();
    expect(issueAt([{ type: "numbered-list", indent: 1.5 }], "content[0].indent")).toBeDefined();
    expect(issueAt([{ type: "to_do", checked: "yes" }], "content[0].checked")).toBeDefined();
    expect(issueAt([{ type: "callout", icon: 1 }], "content[0].icon")).toBeDefined();
    expect(issueAt([{ type: "code", language: ["ts"] }], "content[0].language")).toBeDefined();
  });

  it("checks tables: rows required, cells strings, every row the same length", () => {
    expect(issueAt([{ type: "table" }], "content[0].rows")).toBeDefined();
    expect(issueAt([{ type: "table", rows: [["a", 1]] }], "content[0].rows[0][1]")).toBeDefined();
    expect(issueAt([{ type: "table", rows: [["a", "b"], ["c"]] }], "content[0].rows[1]")).toMatchObject({
      code: "ragged_table",
    });
    expect(issueAt([{ type: "table", rows: [["a"]], has_header: "yes" }], "content[0].has_header")).toBeDefined();
  });

  it("reports problems inside toggle content with their nested path", () => {
    const content = [
      { type: "paragraph" },
      { type: "toggle", children: [{ text: "t" }], content: [{ type: "paragraph" }, { type: "todo" }] },
    ];
    expect(issueAt(content, "content[1].content[1].type")).toMatchObject({ suggested_type: "to_do" });
    expect(issueAt([{ type: "toggle", content: "x" }], "content[0].content")).toMatchObject({ code: "not_an_array" });
  });

  it("reports every problem at once", () => {
    const found = issues([
      { type: "text" },
      { type: "paragraph" },
      { type: "image" },
      { type: "heading", level: 3, metadata: {} },
      { type: "widget" },
    ]);
    expect(found.map((issue) => issue.path)).toEqual([
      "content[0].type",
      "content[2].url",
      "content[3].metadata",
      "content[3].type",
      "content[4].type",
    ]);
    expect(refusal([{ type: "text" }, { type: "todo" }]).message).toContain("and 1 more problem");
  });

  it("caps the issue list", () => {
    const details = refusal(Array.from({ length: 80 }, () => ({ type: "text" }))).details;
    expect(details).toMatchObject({ truncated: true, total_issues: 80 });
    expect((details as { issues: unknown[] }).issues).toHaveLength(50);
  });

  it("uses the given base path", () => {
    expect(issues([{ type: "text" }], "properties.content")[0]?.path).toBe("properties.content[0].type");
  });
});

describe("contentText", () => {
  it("collects all plain text, one line per item, including toggle content, cells and media", () => {
    const text = contentText(EVERY_TYPE);
    for (const expected of [
      "Project plan",
      "Inside the toggle",
      "Deep item",
      "a | b",
      "multi\nline",
      "A cat [photo]",
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).toContain("https://example.com/v.mp4");
    expect(contentText(null)).toBe("");
  });
});

describe("ContentSchema", () => {
  it("shows the canonical item types in a generated OpenAPI document", () => {
    const app = new OpenAPIHono();
    const route = createRoute({
      method: "put",
      path: "/body",
      request: { body: { content: { "application/json": { schema: z.object({ content: ContentSchema }) } } } },
      responses: { 204: { description: "Saved" } },
    });
    app.openapi(route, (c) => c.body(null, 204));
    const document = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "1" } });
    const schemas = document.components?.schemas ?? {};
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(["Content", "ContentItem", "ContentTextSpan"]));
    const serialized = JSON.stringify(schemas.ContentItem);
    for (const type of CANONICAL_CONTENT_TYPES) expect(serialized).toContain(`"${type}"`);
    expect(serialized).toContain("has_header");
  });

  it("parses a body with the same rules as validateContent for well-formed items", () => {
    expect(ContentSchema.safeParse(EVERY_TYPE).success).toBe(true);
    expect(ContentSchema.safeParse(null).success).toBe(true);
    expect(ContentSchema.safeParse([{ type: "text" }]).success).toBe(false);
  });
});
