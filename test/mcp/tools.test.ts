import { env } from "cloudflare:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { CREATE_RATE_LIMIT } from "../../src/routes/quick-tasks/quick-tasks.schemas";
import { api, createUser, type TestUser } from "../helpers/api";
import { createBlock, uniqueWord } from "../helpers/blocks";
import { createComment, listPageComments, storedCommentsOn } from "../helpers/comments";
import { createDatabase, createRow, queryRows, storedRowIds } from "../helpers/databases";
import { callTool, connectMcp, postMcp } from "../helpers/mcp";
import { countOwnedBlocks, createPage, getPage, storedContent } from "../helpers/pages";
import { startEarlyInAWindow } from "../helpers/rate-windows";

// Every tool through the official SDK's client: what it answers (text and structured content),
// that it answers what the REST operation it mirrors answers, another user's ids (not found, and
// nothing written), and invalid arguments (a tool error, never a 500 or a JSON-RPC error).

let clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  clients = [];
});

async function connect(user: TestUser): Promise<Client> {
  const client = await connectMcp(user);
  clients.push(client);
  return client;
}

describe("search", () => {
  it("finds pages and blocks by words of their titles and bodies, with ids and a snippet around the match", async () => {
    const user = await createUser();
    const word = uniqueWord();
    const page = await createPage(user, { title: `Launch ${word}`, content_markdown: "Nothing to see." });
    const block = await createBlock(user, {
      parent_id: page.id,
      properties: { text: `A long sentence before the word ${word} and a long sentence after it, for context.` },
    });
    const result = await callTool<{ results: { id: string; type: string; snippet: string }[] }>(
      await connect(user),
      "search",
      { query: word },
    );
    expect(result.isError).toBe(false);
    expect(result.structured.results.map((found) => found.id).sort()).toEqual([page.id, block.id].sort());
    const snippet = result.structured.results.find((found) => found.id === block.id)?.snippet;
    expect(snippet).toContain(word);
    expect(result.text).toContain(page.id);
    expect(result.text).toContain(`Launch ${word}`);
  });

  it("finds nothing of another user's", async () => {
    const owner = await createUser();
    const word = uniqueWord();
    await createPage(owner, { title: word });
    const result = await callTool<{ results: unknown[] }>(await connect(await createUser()), "search", { query: word });
    expect(result.structured.results).toEqual([]);
    expect(result.text).toContain("Nothing matches");
  });
});

describe("get_page", () => {
  it("answers the title, values and body as markdown, and lists the child pages", async () => {
    const user = await createUser();
    const page = await createPage(user, {
      title: "Launch plan",
      content_markdown: "Ship on **Friday**.\n\n- one\n- two",
    });
    const child = await createPage(user, { title: "Checklist", parent_id: page.id });
    const result = await callTool<{ markdown: string; child_pages: unknown[]; title: string; content?: unknown }>(
      await connect(user),
      "get_page",
      { id: page.id },
    );
    expect(result.isError).toBe(false);
    expect(result.text.startsWith("# Launch plan\n\nShip on **Friday**.")).toBe(true);
    expect(result.text).toContain(`Checklist (page, id ${child.id})`);
    expect(result.structured).toMatchObject({ id: page.id, type: "page", title: "Launch plan" });
    expect(result.structured.markdown).toContain("- one\n- two");
    expect(result.structured.child_pages).toEqual([{ id: child.id, type: "page", title: "Checklist" }]);
    expect(result.structured.content).toBeUndefined();
  });

  it("answers a row's values by column name, and a database without a body", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { title: "Tasks" });
    const row = await createRow(user, database.id, { title: "Write docs", Status: "Todo", Priority: 2 });
    const client = await connect(user);
    const read = await callTool<{ properties_by_name: Record<string, unknown> }>(client, "get_page", { id: row.id });
    expect(read.text).toContain("# Write docs");
    expect(read.text).toContain("Status: Todo");
    expect(read.structured.properties_by_name).toMatchObject({ Priority: 2 });
    const databaseRead = await callTool(client, "get_page", { id: database.id });
    expect(databaseRead.text).toContain("query_database");
    expect(databaseRead.structured).toMatchObject({ type: "database", title: "Tasks", markdown: null });
  });
});

describe("get_block_tree", () => {
  it("answers the hierarchy compactly, to the depth asked", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Root" });
    const block = await createBlock(user, { parent_id: page.id, properties: { text: "First block" } });
    const nested = await createBlock(user, { parent_id: block.id, properties: { text: "Nested block" } });
    const client = await connect(user);
    const result = await callTool<{ tree: { id: string; children: { id: string; children: unknown[] }[] } }>(
      client,
      "get_block_tree",
      { id: page.id },
    );
    expect(result.text.split("\n")).toEqual([
      `- [page] Root (${page.id})`,
      `  - [paragraph] First block (${block.id})`,
      `    - [paragraph] Nested block (${nested.id})`,
    ]);
    expect(result.structured.tree.children[0]?.children).toHaveLength(1);
    const shallow = await callTool<{ tree: { children: { children: unknown[] }[] } }>(client, "get_block_tree", {
      id: page.id,
      depth: 1,
    });
    expect(shallow.structured.tree.children[0]?.children).toEqual([]);
  });
});

describe("create_page", () => {
  it("creates a page with a markdown body under a parent, as POST /api/v1/pages does", async () => {
    const user = await createUser();
    const parent = await createPage(user, { title: "Parent" });
    const result = await callTool<{ id: string; parent_id: string }>(await connect(user), "create_page", {
      title: "Meeting notes",
      markdown: "## Agenda\n\n- [ ] Budget",
      parent_id: parent.id,
    });
    expect(result.isError).toBe(false);
    expect(result.text).toContain(`Created page "Meeting notes" (id ${result.structured.id})`);
    const stored = await getPage(user, result.structured.id);
    expect(stored.body).toMatchObject({ type: "page", parent_id: parent.id, properties: { title: "Meeting notes" } });
    expect(stored.body.content).toEqual([
      { type: "heading-2", children: [{ text: "Agenda" }] },
      { type: "to_do", checked: false, children: [{ text: "Budget" }] },
    ]);
  });
});

describe("create_page and update_page hold a date mention to the calendar, as the REST operations do", () => {
  it("a mention of 2026-02-30 is a tool error and writes nothing; 2026-02-28 is taken", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Dates", content_markdown: "First." });
    const client = await connect(user);
    const before = await countOwnedBlocks(user.id);
    const created = await callTool(client, "create_page", {
      title: "Due",
      markdown: "On [the day](mention:date:2026-02-30)",
    });
    expect(created.isError).toBe(true);
    expect(await countOwnedBlocks(user.id)).toBe(before);
    const updated = await callTool(client, "update_page", {
      id: page.id,
      markdown: "On [the day](mention:date:2026-13-01)",
      mode: "replace",
    });
    expect(updated.isError).toBe(true);
    expect(await storedContent(page.id)).toEqual([{ type: "paragraph", children: [{ text: "First." }] }]);
    const taken = await callTool(client, "update_page", {
      id: page.id,
      markdown: "On [the day](mention:date:2026-02-28)",
      mode: "replace",
    });
    expect(taken.isError).toBe(false);
  });
});

describe("a database row", () => {
  it("is named by its database's title property in search, get_block_tree and update_page", async () => {
    const user = await createUser();
    const word = uniqueWord();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: `Plan ${word}` });
    const client = await connect(user);

    const found = await callTool<{ results: { id: string; title: string }[] }>(client, "search", { query: word });
    expect(found.structured.results).toEqual([expect.objectContaining({ id: row.id, title: `Plan ${word}` })]);
    expect(found.text).toContain(`- Plan ${word} (database_row, id ${row.id}`);

    const tree = await callTool<{ tree: { id: string; text: string } }>(client, "get_block_tree", { id: row.id });
    expect(tree.structured.tree).toMatchObject({ id: row.id, text: `Plan ${word}` });

    const updated = await callTool<{ title: string }>(client, "update_page", {
      id: row.id,
      title: `Plan ${word} B`,
      mode: "append",
    });
    expect(updated.isError).toBe(false);
    expect(updated.structured.title).toBe(`Plan ${word} B`);
    expect(updated.text).toContain(`Updated page "Plan ${word} B"`);
  });
});

describe("update_page", () => {
  it("replaces the body, or appends to it", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Notes", content_markdown: "First." });
    const client = await connect(user);
    const appended = await callTool(client, "update_page", { id: page.id, markdown: "Second.", mode: "append" });
    expect(appended.isError).toBe(false);
    expect(await storedContent(page.id)).toEqual([
      { type: "paragraph", children: [{ text: "First." }] },
      { type: "paragraph", children: [{ text: "Second." }] },
    ]);
    const replaced = await callTool(client, "update_page", {
      id: page.id,
      title: "Renamed",
      markdown: "Only this.",
      mode: "replace",
    });
    expect(replaced.text).toContain('Updated page "Renamed"');
    expect(await storedContent(page.id)).toEqual([{ type: "paragraph", children: [{ text: "Only this." }] }]);
  });

  it("takes get_page's etag as if_match: a stale one is a precondition_failed tool error and writes nothing", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Guarded", content_markdown: "First." });
    const client = await connect(user);
    const read = await callTool(client, "get_page", { id: page.id });
    const etag = (read.structured as { etag: string }).etag;
    expect(etag).toBe((await getPage(user, page.id)).headers.get("ETag"));
    const first = await callTool(client, "update_page", {
      id: page.id,
      markdown: "Second.",
      mode: "replace",
      if_match: etag,
    });
    expect(first.isError).toBe(false);
    const stale = await callTool(client, "update_page", {
      id: page.id,
      markdown: "Lost.",
      mode: "replace",
      if_match: etag,
    });
    expect(stale.isError).toBe(true);
    expect(stale.text).toContain("precondition_failed");
    expect(await storedContent(page.id)).toEqual([{ type: "paragraph", children: [{ text: "Second." }] }]);
    const malformed = await callTool(client, "update_page", {
      id: page.id,
      markdown: "x",
      mode: "append",
      if_match: "unquoted",
    });
    expect(malformed.isError).toBe(true);
    expect(malformed.text).toContain("validation_failed");
  });

  it("appends to a page without a body, and two appends at once both land", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Empty" });
    const client = await connect(user);
    const other = await connect(user);
    const results = await Promise.all([
      callTool(client, "update_page", { id: page.id, markdown: "From one.", mode: "append" }),
      callTool(other, "update_page", { id: page.id, markdown: "From another.", mode: "append" }),
    ]);
    expect(results.map((result) => result.isError)).toEqual([false, false]);
    const texts = ((await storedContent(page.id)) as { children: { text: string }[] }[]).map(
      (item) => item.children[0]?.text,
    );
    expect(texts.sort()).toEqual(["From another.", "From one."]);
  });

  it("refuses an unsafe link in the markdown as PUT does, and writes nothing", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Links", content_markdown: "Safe." });
    const result = await callTool(await connect(user), "update_page", {
      id: page.id,
      markdown: "[click](javascript:alert(1))",
      mode: "append",
    });
    expect(result.isError).toBe(true);
    expect(result.text).toContain("code validation_failed");
    expect(await storedContent(page.id)).toEqual([{ type: "paragraph", children: [{ text: "Safe." }] }]);
  });
});

describe("query_database", () => {
  it("answers rows matching the filters, values by column name, with a cursor to the next page", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    await createRow(user, database.id, { title: "A", Status: "Todo", Priority: 1 });
    await createRow(user, database.id, { title: "B", Status: "Done", Priority: 2 });
    await createRow(user, database.id, { title: "C", Status: "Todo", Priority: 3 });
    const client = await connect(user);
    const args = {
      database_id: database.id,
      filters: [{ property: "Status", operator: "equals", value: "Todo" }],
      sorts: [{ property: "Priority", direction: "desc" }],
      limit: 1,
    };
    const first = await callTool<{ rows: { id: string; values: Record<string, unknown> }[]; next_cursor: string }>(
      client,
      "query_database",
      args,
    );
    expect(first.isError).toBe(false);
    expect(first.structured.rows.map((row) => row.values.title)).toEqual(["C"]);
    expect(first.text).toContain("Status: Todo");
    const rest = await callTool<{ rows: { values: Record<string, unknown> }[]; next_cursor: string | null }>(
      client,
      "query_database",
      { ...args, cursor: first.structured.next_cursor },
    );
    expect(rest.structured.rows.map((row) => row.values.title)).toEqual(["A"]);
    expect(rest.structured.next_cursor).toBeNull();
    // What POST /api/v1/databases/{id}/query answers for the same query.
    const { database_id: _, ...body } = args;
    const viaRest = await queryRows(user, database.id, { ...body, limit: 2 });
    expect(viaRest.body.map((row) => row.id)).toEqual([first.structured.rows[0]?.id, expect.any(String)]);
  });
});

describe("add_rows", () => {
  it("adds every row or none, a refusal listing each row at fault", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const client = await connect(user);
    const added = await callTool<{ created: number; ids: string[] }>(client, "add_rows", {
      database_id: database.id,
      rows: [{ title: "One", properties: { Status: "Todo" } }, { title: "Two" }],
    });
    expect(added.isError).toBe(false);
    expect(added.structured.created).toBe(2);
    expect((await storedRowIds(database.id)).sort()).toEqual([...added.structured.ids].sort());
    const refused = await callTool<{ details: { rows: { index: number }[] } }>(client, "add_rows", {
      database_id: database.id,
      rows: [{ title: "Fine" }, { title: "Bad", properties: { Status: "todo" } }, { nope: 1 }],
    });
    expect(refused.isError).toBe(true);
    expect(refused.structured.details.rows.map((row) => row.index)).toEqual([1, 2]);
    expect(await storedRowIds(database.id)).toHaveLength(2);
  });
});

describe("comments", () => {
  it("add_comment comments on a block, and list_comments lists the page's comments", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Reviewed" });
    const block = await createBlock(user, { parent_id: page.id, properties: { text: "Claim" } });
    const client = await connect(user);
    const added = await callTool<{ id: string }>(client, "add_comment", { block_id: block.id, content: "Source?" });
    expect(added.isError).toBe(false);
    const reply = await callTool<{ parent_id: string }>(client, "add_comment", {
      block_id: block.id,
      content: "Added one.",
      parent_id: added.structured.id,
    });
    expect(reply.structured.parent_id).toBe(added.structured.id);
    const listed = await callTool<{ comments: { id: string }[] }>(client, "list_comments", { page_id: page.id });
    const rest = await listPageComments(user, page.id);
    expect(listed.structured.comments).toEqual(rest.body);
    expect(listed.text).toContain("Source?");
    expect(listed.text).toContain(`reply to ${added.structured.id}`);
  });
});

describe("capture_task", () => {
  it("turns a sentence into a task row of the built-in Tasks database", async () => {
    const user = await createUser();
    const result = await callTool<{ task: { id: string }; parse: { title: string; priority: string } }>(
      await connect(user),
      "capture_task",
      { text: "Pay rent tomorrow at 9am, high priority", timezone: "Europe/Berlin" },
    );
    expect(result.isError).toBe(false);
    expect(result.structured.parse).toMatchObject({ title: "Pay rent", priority: "high" });
    expect(result.text).toContain(`Created task "Pay rent" (id ${result.structured.task.id}) in Tasks`);
    expect((await getPage(user, result.structured.task.id)).status).toBe(200);
  });

  it("counts on the REST create's own limit: one allowance for both ways, refused alike past it", async () => {
    await startEarlyInAWindow(60, 20);
    const user = await createUser();
    const client = await connect(user);
    // All of the user's allowance this minute but one, used (MODEL_CALL_LIMITER: 120 a minute).
    for (let i = 0; i < 119; i++) {
      await env.MODEL_CALL_LIMITER.limit({ key: `${CREATE_RATE_LIMIT.counter}|user:${user.id}` });
    }
    const last = await callTool(client, "capture_task", { text: "Water the plants", timezone: "UTC" });
    expect(last.isError).toBe(false);

    const refused = await callTool<{ code: string; details: { retry_after_seconds: number } }>(client, "capture_task", {
      text: "Water the plants again",
      timezone: "UTC",
    });
    expect(refused.isError).toBe(true);
    expect(refused.structured).toMatchObject({ code: "rate_limited", details: { retry_after_seconds: 60 } });
    const rest = await api("/api/v1/tasks/from-natural-language", {
      method: "POST",
      auth: user.key,
      body: { text: "Water the plants by REST", timezone: "UTC" },
    });
    expect(rest.status).toBe(429);
  });
});

describe("another user's ids", () => {
  it("are not found by every tool that takes one, and nothing of theirs changes", async () => {
    const owner = await createUser();
    const page = await createPage(owner, { title: "Private", content_markdown: "Secret." });
    const block = await createBlock(owner, { parent_id: page.id, properties: { text: "Hidden" } });
    await createComment(owner, block.id, "Owner's note");
    const database = await createDatabase(owner);
    await createRow(owner, database.id, { title: "Row" });
    const before = {
      blocks: await countOwnedBlocks(owner.id),
      content: await storedContent(page.id),
      comments: await storedCommentsOn([block.id]),
      rows: await storedRowIds(database.id),
    };
    const intruder = await createUser();
    const client = await connect(intruder);
    const calls: [string, Record<string, unknown>][] = [
      ["get_page", { id: page.id }],
      ["get_block_tree", { id: page.id }],
      ["query_database", { database_id: database.id }],
      ["list_comments", { page_id: page.id }],
      ["update_page", { id: page.id, markdown: "Overwritten.", mode: "replace" }],
      ["add_rows", { database_id: database.id, rows: [{ title: "Planted" }] }],
      ["add_comment", { block_id: block.id, content: "Planted" }],
      ["create_page", { title: "Planted", parent_id: page.id }],
    ];
    for (const [name, args] of calls) {
      const result = await callTool<{ code: string }>(client, name, args);
      expect(result.isError, name).toBe(true);
      expect(result.structured.code, name).toBe("not_found");
      expect(result.text, name).toMatch(/not found \(code not_found\)/);
    }
    expect({
      blocks: await countOwnedBlocks(owner.id),
      content: await storedContent(page.id),
      comments: await storedCommentsOn([block.id]),
      rows: await storedRowIds(database.id),
    }).toEqual(before);
    expect(await countOwnedBlocks(intruder.id)).toBe(0);
  });
});

describe("invalid arguments", () => {
  it.each([
    ["get_page", "without its id", {}],
    ["get_page", "with a number for an id", { id: 42 }],
    ["search", "with a limit of 0", { query: "x", limit: 0 }],
    ["get_block_tree", "deeper than 25", { id: "x", depth: 99 }],
    ["create_page", "with a title too long", { title: "x".repeat(2001) }],
    ["update_page", "with an unknown mode", { id: "x", mode: "merge" }],
    ["query_database", "with filters as a string", { database_id: "x", filters: "Status = Todo" }],
    ["add_rows", "with no rows", { database_id: "x", rows: [] }],
    ["add_comment", "with only whitespace", { block_id: "x", content: "   " }],
    ["capture_task", "in no time zone", { text: "Pay rent", timezone: "Mars/Olympus" }],
    ["get_page", "with an argument it does not take", { id: "x", extra: true }],
  ])("%s %s is a tool error, never a JSON-RPC error", async (name, _case, args) => {
    const result = await callTool(await connect(await createUser()), name, args);
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/Invalid arguments|validation/i);
  });

  it("a tool nobody has is a JSON-RPC error, -32602 (MCP 2025-11-25, Tools, Error Handling)", async () => {
    const call = callTool(await connect(await createUser()), "drop_database", {});
    await expect(call).rejects.toBeInstanceOf(McpError);
    await expect(call).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("Unknown tool: drop_database"),
    });
  });

  it("a call whose params are no tools/call params is a JSON-RPC error, -32602 Invalid params", async () => {
    const user = await createUser();
    for (const params of [{ name: "search", arguments: "query=plan" }, { arguments: {} }, { name: 7 }]) {
      const res = await postMcp(user, { jsonrpc: "2.0", id: 9, method: "tools/call", params });
      expect(res.status).toBe(200);
      expect(res.body, JSON.stringify(params)).toMatchObject({ id: 9, error: { code: -32602 } });
    }
  });
});
