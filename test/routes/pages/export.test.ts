import { env } from "cloudflare:test";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { type ApiResponse, api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { createBlock, insertBlock, issuePaths } from "../../helpers/blocks";
import { createDatabase, createRow } from "../../helpers/databases";
import { createPage, PAGES, readPageTarget, setupPageTarget } from "../../helpers/pages";

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

const exportOf = (user: TestUser, id: string, format?: string): Promise<ApiResponse<Uint8Array>> =>
  api<Uint8Array>(`${PAGES}/${id}/export${format ? `?format=${format}` : ""}`, { auth: user, raw: true });

const batchOf = (user: TestUser, query: string): Promise<ApiResponse<Uint8Array>> =>
  api<Uint8Array>(`${PAGES}/export/batch?${query}`, { auth: user, raw: true });

/** An error answer read as raw bytes, parsed back to its JSON envelope. */
const errorOf = (res: ApiResponse<Uint8Array>): ApiResponse => ({ ...res, body: JSON.parse(decode(res.body)) });

function expectFile(res: ApiResponse<Uint8Array>, contentType: string, filename: string) {
  expect(res.status, decode(res.body)).toBe(200);
  expect(res.headers.get("Content-Type")).toBe(contentType);
  expect(res.headers.get("Content-Disposition")).toBe(
    `attachment; filename="${filename}"; filename*=UTF-8''${encodeURIComponent(filename)}`,
  );
}

describeAuthMatrix({
  name: "GET /api/v1/pages/{id}/export",
  method: "GET",
  path: (id) => `${PAGES}/${id}/export?format=markdown`,
  setup: setupPageTarget,
  readBack: readPageTarget,
});

describeAuthMatrix({
  name: "GET /api/v1/pages/export/batch",
  method: "GET",
  path: (id) => `${PAGES}/export/batch?ids=${id}`,
  setup: setupPageTarget,
  readBack: readPageTarget,
});

/** A page with a body, editor blocks under it (one nested), and a sub-page with its own body. */
async function richPage(user: TestUser) {
  const page = await createPage(user, {
    title: "Project Plan",
    content: [
      { type: "heading-2", children: [{ text: "Goals" }] },
      { type: "paragraph", children: [{ text: "Ship " }, { text: "it", bold: true }] },
    ],
  });
  const list = await createBlock(user, {
    type: "bulleted-list",
    parent_id: page.id,
    properties: { text: "First child" },
  });
  await createBlock(user, { type: "paragraph", parent_id: list.id, properties: { text: "Nested grandchild" } });
  await createBlock(user, { type: "quote", parent_id: page.id, properties: { text: "Second child" } });
  await createPage(user, {
    title: "Sub page",
    parent_id: page.id,
    content: [{ type: "paragraph", children: [{ text: "Sub body" }] }],
  });
  return page;
}

describe("GET /api/v1/pages/{id}/export: pages", () => {
  it("exports markdown by default: the title, the body, then child blocks and sub-pages", async () => {
    const user = await createUser();
    const page = await richPage(user);
    const res = await exportOf(user, page.id);
    expectFile(res, "text/markdown; charset=utf-8", "project-plan.md");
    const lines = [
      "# Project Plan",
      "## Goals",
      "Ship **it**",
      "- First child",
      "Nested grandchild",
      "> Second child",
      "## Sub page",
      "Sub body",
    ];
    expect(decode(res.body)).toBe(`${lines.join("\n\n")}\n`);
    expect(decode((await exportOf(user, page.id, "markdown")).body)).toBe(decode(res.body));
  });

  it("exports HTML: a standalone document with the title, body and child blocks", async () => {
    const user = await createUser();
    const page = await richPage(user);
    const res = await exportOf(user, page.id, "html");
    expectFile(res, "text/html; charset=utf-8", "project-plan.html");
    const html = decode(res.body);
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain("<title>Project Plan</title>");
    expect(html).toContain('<h1 class="page-title">Project Plan</h1>');
    expect(html).toContain("<strong>it</strong>");
    for (const text of ["Goals", "First child", "Nested grandchild", "Second child", "Sub page", "Sub body"]) {
      expect(html).toContain(text);
    }
    expect(html.indexOf("First child")).toBeLessThan(html.indexOf("Nested grandchild"));
    expect(html.indexOf("Second child")).toBeLessThan(html.indexOf("Sub body"));
  });

  it("escapes HTML in the text", async () => {
    const user = await createUser();
    const page = await createPage(user, {
      title: "<b>Title</b>",
      content: [{ type: "paragraph", children: [{ text: "<script>alert(1)</script>" }] }],
    });
    const html = decode((await exportOf(user, page.id, "html")).body);
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).toContain("&lt;script&gt;");
    expect(html).not.toContain("<b>Title</b>");
  });

  it("exports JSON: the page tree with its child blocks", async () => {
    const user = await createUser();
    const page = await richPage(user);
    const res = await exportOf(user, page.id, "json");
    expectFile(res, "application/json; charset=utf-8", "project-plan.json");
    const tree = JSON.parse(decode(res.body)) as {
      id: string;
      content: unknown;
      children: { type: string; properties: Record<string, unknown>; children: { properties: unknown }[] }[];
    };
    expect(tree.id).toBe(page.id);
    expect(tree.content).toEqual(page.content);
    expect(tree.children.map((c) => c.type)).toEqual(["bulleted-list", "quote", "page"]);
    expect(tree.children[0]?.children.map((c) => c.properties)).toEqual([{ text: "Nested grandchild" }]);
  });

  it("exports a PDF whose body starts with %PDF-", async () => {
    const user = await createUser();
    const page = await richPage(user);
    const res = await exportOf(user, page.id, "pdf");
    expectFile(res, "application/pdf", "project-plan.pdf");
    expect(res.body).toBeInstanceOf(Uint8Array);
    expect(decode(res.body.slice(0, 5))).toBe("%PDF-");
    expect(res.body.length).toBeGreaterThan(500);
    expect(decode(res.body.slice(-8))).toContain("%%EOF");
  });

  it("exports a database row like a page, titled by its title property", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const row = await createRow(
      user,
      database.id,
      { title: "Row Title" },
      {
        content: [{ type: "paragraph", children: [{ text: "row body" }] }],
      },
    );
    const res = await exportOf(user, row.id, "markdown");
    expectFile(res, "text/markdown; charset=utf-8", "row-title.md");
    expect(decode(res.body)).toBe("# Row Title\n\nrow body\n");
  });

  it("names an untitled page's file untitled", async () => {
    const user = await createUser();
    const page = await createPage(user, {});
    const res = await exportOf(user, page.id, "markdown");
    expectFile(res, "text/markdown; charset=utf-8", "untitled.md");
  });

  it("names the file after a title in any script: filename* (RFC 5987) carries it, filename an ASCII form", async () => {
    const user = await createUser();
    const cases = [
      { title: "日本語の議事録", utf8: "日本語の議事録.md", ascii: "untitled.md" },
      { title: "Über uns: Café 2026", utf8: "über-uns-café-2026.md", ascii: "uber-uns-cafe-2026.md" },
      { title: 'Отчёт "Q3"\r\nX-Injected: 1', utf8: "отчёт-q3-x-injected-1.md", ascii: "q3-x-injected-1.md" },
    ];
    for (const { title, utf8, ascii } of cases) {
      const page = await createPage(user, { title });
      const res = await exportOf(user, page.id, "markdown");
      expect(res.status, title).toBe(200);
      expect(res.headers.get("Content-Disposition"), title).toBe(
        `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(utf8)}`,
      );
    }
  });

  it("round trip: a page created from content_markdown exports the same document after its title", async () => {
    const user = await createUser();
    const markdown = [
      "## Two",
      "### Three",
      "Mix **b** *i* `c` ~~s~~ [l](https://x.y)",
      "- bullet\n  - nested\n1. first\n2. second\n- [ ] open\n- [x] done",
      "> quoted",
      "```js\nlet x = 1;\n```",
      "---",
      "| h1 | h2 |\n| --- | --- |\n| a | b |",
      "![pic](https://x.y/i.png)",
    ].join("\n\n");
    const page = await createPage(user, { title: "Round trip", content_markdown: `${markdown}\n` });
    const res = await exportOf(user, page.id, "markdown");
    expect(decode(res.body)).toBe(`# Round trip\n\n${markdown}\n`);
  });
});

describe("GET /api/v1/pages/{id}/export: databases as CSV", () => {
  it("writes one column per property in schema order headed by display name, CRLF, RFC 4180 quoting", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { title: "Task List" });
    const first = await createRow(user, database.id, {
      title: 'Say "hi", then leave',
      Status: "Done",
      Tags: ["Art", "Music"],
      Stage: "In progress",
      Priority: 2.5,
      Due: "2024-05-01",
      Urgent: true,
      Notes: "line one\nline two",
    });
    const second = await createRow(user, database.id, {
      title: "Plain",
      Due: { start: "2024-05-01T09:00:00Z", end: "2024-05-03T17:00:00Z" },
      Urgent: false,
    });

    const res = await exportOf(user, database.id);
    expectFile(res, "text/csv; charset=utf-8", "task-list.csv");
    const csv = decode(res.body);
    const lines = csv.split("\r\n");
    expect(lines[0]).toBe(
      "title,created_time,created_by,last_edited_time,last_edited_by,Status,Tags,Stage,Priority,Due,Urgent,Notes",
    );
    expect(csv).toBe(
      [
        lines[0],
        `"Say ""hi"", then leave",${first.created_at},${user.id},${first.updated_at},${user.id},Done,"Art, Music",In progress,2.5,2024-05-01,Yes,"line one\nline two"`,
        `Plain,${second.created_at},${user.id},${second.updated_at},${user.id},,,,,2024-05-01T09:00:00Z → 2024-05-03T17:00:00Z,No,`,
      ].join("\r\n"),
    );
    expect(csv).not.toMatch(/[^\r]\n(?!line two)/);
    expect((await exportOf(user, database.id, "csv")).body).toEqual(res.body);
  });

  it("follows renamed properties and options", async () => {
    const user = await createUser();
    const database = await createDatabase(user, {
      properties: [{ name: "Status", type: "select", options: [{ name: "Todo" }] }],
    });
    await createRow(user, database.id, { title: "Row", Status: "Todo" });
    const status = database.prop("Status");
    const todo = database.option("Status", "Todo");
    await api(`/api/v1/databases/${database.id}/properties/${status.id}`, {
      method: "PATCH",
      auth: user,
      body: { name: "State" },
    });
    await api(`/api/v1/databases/${database.id}/properties/${status.id}/options/${todo.id}`, {
      method: "PATCH",
      auth: user,
      body: { name: "To do, soon" },
    });
    const [header, row] = decode((await exportOf(user, database.id, "csv")).body).split("\r\n");
    expect(header?.split(",").at(-1)).toBe("State");
    expect(row?.endsWith(',"To do, soon"')).toBe(true);
  });

  it("writes only the header for a database without rows", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [{ name: "Notes", type: "text" }] });
    const csv = decode((await exportOf(user, database.id)).body);
    // RFC 4180 makes the final line break optional.
    expect(csv.replace(/\r\n$/, "")).toBe("title,created_time,created_by,last_edited_time,last_edited_by,Notes");
  });

  it("exports a row stored with null properties (written straight to D1) as a row without values", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [{ name: "Notes", type: "text" }] });
    await createRow(user, database.id, { title: "First", Notes: "kept" });
    // No write of the API stores null properties; a row written straight to the database may.
    const odd = await insertBlock({
      type: "database_row",
      database_id: database.id,
      created_by: user.id,
      position: null,
    });
    await env.DB.prepare("UPDATE blocks SET properties = 'null' WHERE id = ?").bind(odd).run();
    await createRow(user, database.id, { title: "Second" });

    const res = await exportOf(user, database.id, "csv");
    expectFile(res, "text/csv; charset=utf-8", "tasks.csv");
    const lines = decode(res.body).replace(/\r\n$/, "").split("\r\n");
    expect(lines.map((line) => line.split(",")[0])).toEqual(["title", "First", "Second", ""]);
    expect(lines[1]?.endsWith(",kept")).toBe(true);
    const json = JSON.parse(decode((await exportOf(user, database.id, "json")).body)) as {
      rows: { id: string; properties: unknown; properties_by_name: Record<string, unknown> }[];
    };
    expect(json.rows[2]).toMatchObject({ id: odd, properties: {}, properties_by_name: { title: null, Notes: null } });
    // The row reads as a block without properties everywhere, and a write gives it an object again.
    expect((await api(`${PAGES}/${odd}`, { auth: user })).status).toBe(200);
    const written = await api<{ properties: Record<string, unknown> }>(`${PAGES}/${odd}`, {
      method: "PUT",
      auth: user,
      body: { properties: { Notes: "now" } },
    });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    expect(Object.values(written.body.properties)).toEqual(["now"]);
  });

  it("exports a database as JSON: the database, its schema and its rows", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { title: "Json DB" });
    const row = await createRow(user, database.id, { title: "Only", Status: "Todo" });
    const res = await exportOf(user, database.id, "json");
    expectFile(res, "application/json; charset=utf-8", "json-db.json");
    const body = JSON.parse(decode(res.body)) as {
      database: { id: string };
      schema: { id: string }[];
      rows: { id: string; properties_by_name: Record<string, unknown> }[];
    };
    expect(body.database.id).toBe(database.id);
    expect(body.schema).toEqual(database.properties);
    expect(body.rows.map((r) => r.id)).toEqual([row.id]);
    expect(body.rows[0]?.properties_by_name.Status).toEqual(database.option("Status", "Todo"));
  });
});

describe("GET /api/v1/pages/{id}/export: refusals", () => {
  it.each(["csv"])("400 naming the allowed formats for a page exported as %s", async (format) => {
    const user = await createUser();
    const page = await createPage(user, { title: "P" });
    const res = errorOf(await exportOf(user, page.id, format));
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { format, allowed: ["markdown", "html", "json", "pdf"] } });
  });

  it.each(["markdown", "html", "pdf"])(
    "400 naming the allowed formats for a database exported as %s",
    async (format) => {
      const user = await createUser();
      const database = await createDatabase(user, { properties: [] });
      const res = errorOf(await exportOf(user, database.id, format));
      expectErrorBody(res, 400);
      expect(res.body).toMatchObject({ details: { format, allowed: ["csv", "json"] } });
    },
  );

  it.each([
    ["format=docx", "format"],
    ["format=", "format"],
    ["download=true", ""],
  ])("400 with details for ?%s", async (query, path) => {
    const user = await createUser();
    const page = await createPage(user, { title: "P" });
    const res = errorOf(await api<Uint8Array>(`${PAGES}/${page.id}/export?${query}`, { auth: user, raw: true }));
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain(path);
  });

  it("404 for an editor block, a provider_audit_log block and a missing id", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Holder" });
    const paragraph = await createBlock(user, { parent_id: page.id });
    const audit = await insertBlock({ type: "provider_audit_log", created_by: user.id, properties: { title: "a" } });
    for (const id of [paragraph.id, audit, crypto.randomUUID()]) {
      expectErrorBody(errorOf(await exportOf(user, id, "markdown")), 404);
    }
  });

  it("404 for a trashed page", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Trashed" });
    await api(`${PAGES}/${page.id}`, { method: "DELETE", auth: user });
    expectErrorBody(errorOf(await exportOf(user, page.id)), 404);
  });
});

describe("GET /api/v1/pages/export/batch", () => {
  it("returns a zip with one markdown file per page", async () => {
    const user = await createUser();
    const a = await createPage(user, {
      title: "Alpha",
      content: [{ type: "paragraph", children: [{ text: "a body" }] }],
    });
    const b = await createPage(user, { title: "Beta", content: [{ type: "quote", children: [{ text: "b body" }] }] });
    const res = await batchOf(user, `ids=${a.id},${b.id}`);

    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/zip");
    expect(res.headers.get("Content-Disposition")).toMatch(
      /^attachment; filename="pages-export-\d{4}-\d{2}-\d{2}\.zip"/,
    );
    const files = unzipSync(res.body);
    expect(Object.keys(files).sort()).toEqual(["alpha.md", "beta.md"]);
    expect(decode(files["alpha.md"] as Uint8Array)).toBe("# Alpha\n\na body\n");
    expect(decode(files["beta.md"] as Uint8Array)).toBe("# Beta\n\n> b body\n");
  });

  it("uses the given format, exports databases as CSV, and keeps file names unique", async () => {
    const user = await createUser();
    const one = await createPage(user, { title: "Same" });
    const two = await createPage(user, { title: "Same" });
    const htmlFiles = unzipSync((await batchOf(user, `ids=${one.id},${two.id}&format=html`)).body);
    expect(Object.keys(htmlFiles).sort()).toEqual(["same-2.html", "same.html"]);

    const database = await createDatabase(user, { title: "Db", properties: [] });
    await createRow(user, database.id, { title: "r" });
    const mixed = unzipSync((await batchOf(user, `ids=${one.id},${database.id}`)).body);
    expect(Object.keys(mixed).sort()).toEqual(["db.csv", "same.md"]);
    expect(decode(mixed["db.csv"] as Uint8Array).split("\r\n")).toHaveLength(2);
  });

  it("names zip entries after titles in any script", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "会議メモ" });
    const files = unzipSync((await batchOf(user, `ids=${page.id}`)).body);
    expect(Object.keys(files)).toEqual(["会議メモ.md"]);
  });

  it("exports a repeated id once", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Once" });
    const files = unzipSync((await batchOf(user, `ids=${page.id},${page.id}`)).body);
    expect(Object.keys(files)).toEqual(["once.md"]);
  });

  it("404 when any id is missing or not the caller's", async () => {
    const [user, other] = [await createUser(), await createUser()];
    const mine = await createPage(user, { title: "Mine" });
    const theirs = await createPage(other, { title: "Theirs" });
    expectErrorBody(errorOf(await batchOf(user, `ids=${mine.id},${crypto.randomUUID()}`)), 404);
    expectErrorBody(errorOf(await batchOf(user, `ids=${mine.id},${theirs.id}`)), 404);
  });

  it.each([
    ["without ids", "", "ids"],
    ["with empty ids", "ids=", "ids"],
    ["with an unknown format", "ids=x&format=docx", "format"],
  ])("400 with details %s", async (_case, query, path) => {
    const user = await createUser();
    const res = errorOf(await batchOf(user, query));
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain(path);
  });

  it("400 for only commas, and for more than 50 ids", async () => {
    const user = await createUser();
    expectErrorBody(errorOf(await batchOf(user, "ids=,,")), 400);
    const ids = Array.from({ length: 51 }, () => crypto.randomUUID()).join(",");
    const res = errorOf(await batchOf(user, `ids=${ids}`));
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { count: 51 } });
  });

  it("400 when the format does not fit one of the pages", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "P" });
    const database = await createDatabase(user, { properties: [] });
    expectErrorBody(errorOf(await batchOf(user, `ids=${page.id},${database.id}&format=markdown`)), 400);
  });
});
