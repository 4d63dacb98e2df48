import { describe, expect, it } from "vitest";
import { TOOLS } from "../../../src/mcp/server";
import { type ApiResponse, api, createUser, type TestUser } from "../../helpers/api";
import { BLOCKS, type Block, createBlock } from "../../helpers/blocks";
import { type ChangeEvent, changesAfter, feedEnd } from "../../helpers/changes";
import { createComment } from "../../helpers/comments";
import { contractOperations, securedOf } from "../../helpers/contract";
import { createDatabase, DATABASES } from "../../helpers/databases";
import { postMcp } from "../../helpers/mcp";
import { createPage, PAGES } from "../../helpers/pages";
import { link, SYNCED } from "../../helpers/synced-blocks";

// Every write operation of the contract that takes a user's credential is walked: each that writes a
// block, a comment or a database's schema leaves its events in the change feed, with the request's
// id, and nothing else; the others are listed with what they write instead. A write operation added
// later is in one list or the other, or the first test fails.

/** An event expected of the walked request: its type, and its object when the test knows its id. */
type Expected = [type: ChangeEvent["type"], objectId?: string];

interface Walked {
  /** The request walked, made after the scenario's own setup. */
  send: () => Promise<ApiResponse>;
  /** The events it leaves, from its answer (in any order). */
  expected: (res: ApiResponse) => Expected[];
}

type Scenario = (user: TestUser) => Promise<Walked>;

const post = (user: TestUser, path: string, body?: unknown) => api(path, { method: "POST", auth: user, body });
const bodyOf = <T>(res: ApiResponse) => res.body as T;

/** A database with a select property (two options) and two rows holding its first option. */
async function databaseWithRows(user: TestUser) {
  const database = await createDatabase(user, {
    properties: [{ name: "Status", type: "select", options: [{ name: "Todo" }, { name: "Done" }] }],
  });
  const status = database.prop("Status");
  const rows = await post(user, `${DATABASES}/${database.id}/rows/batch`, {
    rows: [
      { title: "One", properties: { Status: "Todo" } },
      { title: "Two", properties: { Status: "Todo" } },
    ],
  });
  expect(rows.status).toBe(201);
  return { id: database.id, status, option: status.options[0]?.id as string };
}

const BERLIN = { timezone: "Europe/Berlin", reference_at: "2026-03-02T10:00:00+01:00" };

/** A tools/call as an MCP client sends it: one JSON-RPC request to the stateless POST /mcp. */
const callTool = (user: TestUser, name: string, args: Record<string, unknown>) =>
  postMcp(user, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });

/** A tool call's structured content; a tool error fails the test here (it would leave no event to match). */
function toolAnswer<T>(res: ApiResponse): T {
  const result = bodyOf<{ result?: { isError?: boolean; structuredContent: T } }>(res).result;
  expect(result?.isError, JSON.stringify(res.body)).not.toBe(true);
  return result?.structuredContent as T;
}

/** Every write tool of the MCP server: what an agent writes is logged as the REST twin's write is, as the caller's. */
const MCP_WRITE_TOOLS: Record<string, Scenario> = {
  create_page: async (user) => ({
    send: () => callTool(user, "create_page", { title: "By an agent", markdown: "Written **here**." }),
    expected: (res) => [["block.created", toolAnswer<{ id: string }>(res).id]],
  }),
  update_page: async (user) => {
    const page = await createPage(user, { title: "Before the agent" });
    return {
      send: () => callTool(user, "update_page", { id: page.id, markdown: "Appended.", mode: "append" }),
      expected: () => [["block.updated", page.id]],
    };
  },
  add_rows: async (user) => {
    const { id } = await databaseWithRows(user);
    return {
      send: () => callTool(user, "add_rows", { database_id: id, rows: [{ title: "A" }, { title: "B" }] }),
      expected: (res) => toolAnswer<{ ids: string[] }>(res).ids.map((row): Expected => ["block.created", row]),
    };
  },
  add_comment: async (user) => {
    const block = await createBlock(user);
    return {
      send: () => callTool(user, "add_comment", { block_id: block.id, content: "From an agent" }),
      expected: (res) => [["comment.created", toolAnswer<{ id: string }>(res).id]],
    };
  },
  capture_task: async (user) => ({
    send: () => callTool(user, "capture_task", { text: "Water the plants tomorrow", timezone: "Europe/Berlin" }),
    // The first task installs the built-in Tasks database (its columns with it), then the row.
    expected: (res) => [["block.created"], ["block.created", toolAnswer<{ task: { id: string } }>(res).task.id]],
  }),
};

const LOGGED: Record<string, Scenario> = {
  "POST /api/v1/blocks": async (user) => ({
    send: () => post(user, BLOCKS, { type: "paragraph" }),
    expected: (res) => [["block.created", bodyOf<Block>(res).id]],
  }),
  "POST /api/blocks": async (user) => ({
    send: () => post(user, "/api/blocks", { type: "database", properties: { title: "Made unversioned" } }),
    // A database's default columns are part of its creation: no schema event of their own.
    expected: (res) => [["block.created", bodyOf<Block>(res).id]],
  }),
  "PATCH /api/v1/blocks/{id}": async (user) => {
    const block = await createBlock(user);
    return {
      send: () => api(`${BLOCKS}/${block.id}`, { method: "PATCH", auth: user, body: { properties: { a: 1 } } }),
      expected: () => [["block.updated", block.id]],
    };
  },
  "DELETE /api/v1/blocks/{id}": async (user) => {
    const page = await createBlock(user, { type: "page" });
    const child = await createBlock(user, { parent_id: page.id });
    await createComment(user, child.id, "Goes with its block");
    return {
      send: () => api(`${BLOCKS}/${page.id}`, { method: "DELETE", auth: user }),
      // The comment goes with its block: the block's deletion says so.
      expected: () => [
        ["block.deleted", page.id],
        ["block.deleted", child.id],
      ],
    };
  },
  "POST /api/v1/blocks/{id}/duplicate": async (user) => {
    const page = await createBlock(user, { type: "page" });
    await createBlock(user, { parent_id: page.id });
    return {
      send: () => post(user, `${BLOCKS}/${page.id}/duplicate`),
      expected: (res) => [["block.created", bodyOf<Block>(res).id], ["block.created"]],
    };
  },
  "POST /api/v1/blocks/{id}/convert": async (user) => {
    const block = await createBlock(user);
    return {
      send: () => post(user, `${BLOCKS}/${block.id}/convert`, { type: "heading-2" }),
      expected: () => [["block.updated", block.id]],
    };
  },
  "POST /api/v1/blocks/{id}/archive": async (user) => {
    const block = await createBlock(user);
    return { send: () => post(user, `${BLOCKS}/${block.id}/archive`), expected: () => [["block.updated", block.id]] };
  },
  "POST /api/v1/blocks/{id}/trash": async (user) => {
    const block = await createBlock(user);
    return { send: () => post(user, `${BLOCKS}/${block.id}/trash`), expected: () => [["block.updated", block.id]] };
  },
  "POST /api/v1/blocks/{id}/restore": async (user) => {
    const block = await createBlock(user);
    await post(user, `${BLOCKS}/${block.id}/trash`);
    return { send: () => post(user, `${BLOCKS}/${block.id}/restore`), expected: () => [["block.updated", block.id]] };
  },
  "POST /api/v1/blocks/{id}/move": async (user) => {
    const [block, parent] = [await createBlock(user), await createBlock(user, { type: "page" })];
    return {
      send: () => post(user, `${BLOCKS}/${block.id}/move`, { parent_id: parent.id }),
      expected: () => [["block.updated", block.id]],
    };
  },
  "POST /api/v1/pages": async (user) => ({
    send: () => post(user, PAGES, { title: "New page", content_markdown: "# Imported\n\nFrom markdown." }),
    expected: (res) => [["block.created", bodyOf<Block>(res).id]],
  }),
  "POST /api/pages": async (user) => ({
    send: () => post(user, "/api/pages", { title: "New page" }),
    expected: (res) => [["block.created", bodyOf<Block>(res).id]],
  }),
  "PUT /api/v1/pages/{id}": async (user) => {
    const page = await createPage(user, { title: "Before" });
    return {
      send: () => api(`${PAGES}/${page.id}`, { method: "PUT", auth: user, body: { properties: { title: "After" } } }),
      expected: () => [["block.updated", page.id]],
    };
  },
  "DELETE /api/v1/pages/{id}": async (user) => {
    const page = await createPage(user, { title: "Trashed" });
    return {
      send: () => api(`${PAGES}/${page.id}`, { method: "DELETE", auth: user }),
      expected: () => [["block.updated", page.id]],
    };
  },
  "POST /api/v1/databases/{id}/properties": async (user) => {
    const { id } = await databaseWithRows(user);
    return {
      send: () => post(user, `${DATABASES}/${id}/properties`, { name: "Notes", type: "text" }),
      expected: () => [["database.schema_updated", id]],
    };
  },
  "PATCH /api/v1/databases/{id}/properties/{property_id}": async (user) => {
    const { id, status } = await databaseWithRows(user);
    return {
      send: () =>
        api(`${DATABASES}/${id}/properties/${status.id}`, { method: "PATCH", auth: user, body: { name: "State" } }),
      expected: () => [["database.schema_updated", id]],
    };
  },
  "DELETE /api/v1/databases/{id}/properties/{property_id}": async (user) => {
    const { id, status } = await databaseWithRows(user);
    return {
      // Both rows lose their value in the same batch: one event, not one per row.
      send: () => api(`${DATABASES}/${id}/properties/${status.id}`, { method: "DELETE", auth: user }),
      expected: () => [["database.schema_updated", id]],
    };
  },
  "POST /api/v1/databases/{id}/properties/{property_id}/options": async (user) => {
    const { id, status } = await databaseWithRows(user);
    return {
      send: () => post(user, `${DATABASES}/${id}/properties/${status.id}/options`, { name: "Later" }),
      expected: () => [["database.schema_updated", id]],
    };
  },
  "PATCH /api/v1/databases/{id}/properties/{property_id}/options/{option_id}": async (user) => {
    const { id, status, option } = await databaseWithRows(user);
    return {
      send: () =>
        api(`${DATABASES}/${id}/properties/${status.id}/options/${option}`, {
          method: "PATCH",
          auth: user,
          body: { name: "To do" },
        }),
      expected: () => [["database.schema_updated", id]],
    };
  },
  "DELETE /api/v1/databases/{id}/properties/{property_id}/options/{option_id}": async (user) => {
    const { id, status, option } = await databaseWithRows(user);
    return {
      send: () => api(`${DATABASES}/${id}/properties/${status.id}/options/${option}`, { method: "DELETE", auth: user }),
      expected: () => [["database.schema_updated", id]],
    };
  },
  "POST /api/v1/databases/{id}/rows/batch": async (user) => {
    const { id } = await databaseWithRows(user);
    return {
      send: () =>
        post(user, `${DATABASES}/${id}/rows/batch`, { rows: [{ title: "A" }, { title: "B" }, { title: "C" }] }),
      expected: (res) => bodyOf<{ ids: string[] }>(res).ids.map((row): Expected => ["block.created", row]),
    };
  },
  "POST /api/v1/mentions/sync": async (user) => {
    const [page, target] = [
      await createPage(user, { title: "Mentioning" }),
      await createPage(user, { title: "Target" }),
    ];
    const content = [{ type: "paragraph", children: [{ text: "@Target", mention: { type: "page", id: target.id } }] }];
    return {
      // With `content`, the block's content is stored: an update of the block. Without, nothing changes.
      send: () => post(user, "/api/v1/mentions/sync", { block_id: page.id, content }),
      expected: () => [["block.updated", page.id]],
    };
  },
  "POST /api/v1/comments": async (user) => {
    const block = await createBlock(user);
    return {
      send: () => post(user, "/api/v1/comments", { block_id: block.id, content: "Hello" }),
      expected: (res) => [["comment.created", bodyOf<{ id: string }>(res).id]],
    };
  },
  "PATCH /api/v1/comments/{id}": async (user) => {
    const comment = await createComment(user, (await createBlock(user)).id, "Before");
    return {
      send: () => api(`/api/v1/comments/${comment.id}`, { method: "PATCH", auth: user, body: { content: "After" } }),
      expected: () => [["comment.updated", comment.id]],
    };
  },
  "DELETE /api/v1/comments/{id}": async (user) => {
    const block = await createBlock(user);
    const comment = await createComment(user, block.id, "Top");
    const reply = await createComment(user, block.id, "Reply", comment.id);
    return {
      send: () => api(`/api/v1/comments/${comment.id}`, { method: "DELETE", auth: user }),
      expected: () => [
        ["comment.deleted", reply.id],
        ["comment.deleted", comment.id],
      ],
    };
  },
  "POST /api/v1/comments/{id}/resolve": async (user) => {
    const comment = await createComment(user, (await createBlock(user)).id, "Open");
    return {
      send: () => post(user, `/api/v1/comments/${comment.id}/resolve`),
      expected: () => [["comment.updated", comment.id]],
    };
  },
  "POST /api/v1/comments/{id}/unresolve": async (user) => {
    const comment = await createComment(user, (await createBlock(user)).id, "Open");
    await post(user, `/api/v1/comments/${comment.id}/resolve`);
    return {
      send: () => post(user, `/api/v1/comments/${comment.id}/unresolve`),
      expected: () => [["comment.updated", comment.id]],
    };
  },
  "POST /api/v1/synced-blocks/source/{sourceBlockId}/propagate": async (user) => {
    const source = await createBlock(user, { type: "callout", properties: { title: "Checklist" } });
    await createBlock(user, { parent_id: source.id, properties: { text: "Item" } });
    const instance = await createBlock(user);
    const old = await createBlock(user, { parent_id: instance.id });
    await link(user, source.id, instance.id);
    return {
      // The instance takes the source's type and properties; its old child goes, a copy of the source's comes.
      send: () => post(user, `${SYNCED}/source/${source.id}/propagate`),
      expected: () => [["block.deleted", old.id], ["block.updated", instance.id], ["block.created"]],
    };
  },
  "POST /api/v1/tasks/from-natural-language": async (user) => ({
    send: () => post(user, "/api/v1/tasks/from-natural-language", { text: "Book flights friday", ...BERLIN }),
    // The first task installs the built-in Tasks database (its columns with it), then the row.
    expected: (res) => [["block.created"], ["block.created", bodyOf<{ task: { id: string } }>(res).task.id]],
  }),
  "POST /api/v1/tasks/from-natural-language/preview": async (user) => {
    expect(
      (await api("/api/v1/settings", { method: "PATCH", auth: user, body: { quickTaskSkipPreview: true } })).status,
    ).toBe(200);
    return {
      // A preview writes nothing; `preview=1` with quickTaskSkipPreview creates as the create does.
      send: () => post(user, "/api/v1/tasks/from-natural-language/preview?preview=1", { text: "Call Ada", ...BERLIN }),
      expected: (res) => [["block.created"], ["block.created", bodyOf<{ task: { id: string } }>(res).task.id]],
    };
  },
  "POST /api/v1/blocks/{id}/history/{event_id}/restore": async (user) => {
    const block = await createBlock(user, { properties: { text: "first" } });
    const [created] = (await api<{ event_id: number }[]>(`${BLOCKS}/${block.id}/history`, { auth: user })).body;
    await api(`${BLOCKS}/${block.id}`, { method: "PATCH", auth: user, body: { properties: { text: "second" } } });
    return {
      send: () => post(user, `${BLOCKS}/${block.id}/history/${created?.event_id}/restore`),
      expected: () => [["block.updated", block.id]],
    };
  },
  // JSON-RPC: one POST for every tool; each write tool is walked below.
  "POST /mcp": MCP_WRITE_TOOLS.update_page as Scenario,
};

/** Write operations that change no block, comment or schema, and what they write instead. */
const NOT_LOGGED: Record<string, string> = {
  "POST /api/v1/api-keys": "an API key",
  "PATCH /api/v1/api-keys/{id}": "an API key",
  "DELETE /api/v1/api-keys/{id}": "an API key",
  "POST /auth/sign-out": "the user's sessions-valid-from instant",
  "POST /api/v1/databases/{id}/query": "nothing: a read sent as POST",
  "POST /api/database-views/{database_id}": "a saved view (no part of the schema)",
  "PATCH /api/database-views/view/{view_id}": "a saved view",
  "DELETE /api/database-views/view/{view_id}": "a saved view",
  "POST /api/v1/mentions": "a mention made through the API (no block)",
  "PATCH /api/v1/mentions/{id}": "a mention",
  "DELETE /api/v1/mentions/{id}": "a mention",
  "POST /payments/cancel-subscription": "the subscription, at the payment provider",
  "POST /notes-import": "nothing here: the note goes to the notes tool",
  "POST /api/v1/synced-blocks": "the link between two blocks; the instance changes when propagated",
  "POST /api/v1/synced-blocks/instance/{instanceBlockId}/unlink": "the link's state; the instance keeps its content",
  "POST /api/v1/media/upload": "a media file and its record",
  "POST /api/v1/media/resolve": "nothing: it signs a link",
  "POST /api/v1/media/download": "nothing: it reads a file",
  "PATCH /api/v1/media/{id}/metadata": "a media record",
  "DELETE /api/v1/media/{id}": "a media file and its record",
  "POST /api/v1/ai/{provider}/stream":
    "an internal provider_audit_log block, which no user sees and the log leaves out",
  "POST /api/v1/push-subscriptions": "a push subscription",
  "DELETE /api/v1/push-subscriptions/{id}": "a push subscription",
  "POST /api/v1/webhooks": "a webhook endpoint",
  "PATCH /api/v1/webhooks/{id}": "a webhook endpoint",
  "DELETE /api/v1/webhooks/{id}": "a webhook endpoint",
  "POST /api/v1/webhooks/{id}/rotate-secret": "a webhook endpoint's secret",
  "POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/retry": "a webhook delivery",
  "POST /api/v1/reminders": "a reminder",
  "PUT /api/v1/reminders/{reminder_id}": "a reminder",
  "POST /api/v1/reminders/{reminder_id}/snooze": "a reminder",
  "POST /api/v1/reminders/{reminder_id}/dismiss": "a reminder",
  "POST /api/v1/reminders/{reminder_id}/cancel": "a reminder",
  "POST /api/v1/notifications/{id}/read": "a notification",
  "PATCH /api/v1/settings": "the user's settings",
};

const writes = securedOf(await contractOperations()).filter(({ method }) => method !== "get");

describe("every write operation of a user's credential", () => {
  it("is either walked below or listed with what it writes instead", () => {
    const names = writes.map(({ name }) => name);
    expect(names.length).toBeGreaterThan(50);
    expect(names.filter((name) => !(name in LOGGED) && !(name in NOT_LOGGED))).toEqual([]);
    expect([...Object.keys(LOGGED), ...Object.keys(NOT_LOGGED)].filter((name) => !names.includes(name))).toEqual([]);
  });

  it.each(Object.entries(LOGGED))("%s leaves its events in the feed, with its request's id", (_name, scenario) =>
    expectLogged(scenario),
  );
});

describe("every write tool of the MCP server", () => {
  it("is walked below", () => {
    const writeTools = TOOLS.filter((tool) => tool.scope === "write").map((tool) => tool.name);
    expect(Object.keys(MCP_WRITE_TOOLS).sort()).toEqual([...writeTools].sort());
  });

  it.each(Object.entries(MCP_WRITE_TOOLS))(
    "%s leaves its events in the feed, with the request's id and the caller as actor",
    (_name, scenario) => expectLogged(scenario),
  );
});

/** Walks `scenario`: its request leaves exactly the events it expects, with the request's id, the user as actor. */
async function expectLogged(scenario: Scenario): Promise<void> {
  const user = await createUser();
  const { send, expected } = await scenario(user);
  const start = await feedEnd(user);
  const res = await send();
  expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(200);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  const requestId = res.headers.get("X-Request-Id");
  const events = (await changesAfter(user, start)).events.filter((event) => event.request_id === requestId);
  const left = [...events];
  for (const [type, objectId] of expected(res).sort(([, a], [, b]) =>
    a === undefined ? 1 : b === undefined ? -1 : 0,
  )) {
    const at = left.findIndex(
      (event) => event.type === type && (objectId === undefined || event.object_id === objectId),
    );
    expect(
      at,
      `${type} ${objectId ?? "(any)"} in ${JSON.stringify(events.map((e) => [e.type, e.object_id]))}`,
    ).toBeGreaterThanOrEqual(0);
    left.splice(at, 1);
  }
  expect(left.map((event) => [event.type, event.object_id])).toEqual([]);
  for (const event of events) expect(event.actor_id).toBe(user.id);
}

describe("the change log's cost", () => {
  it("adds no D1 round trip to a write: its statements ride in the write's own batch", async () => {
    const user = await createUser();
    const created = await post(user, BLOCKS, { type: "paragraph" });
    const id = bodyOf<Block>(created).id;
    const patched = await api(`${BLOCKS}/${id}`, { method: "PATCH", auth: user, body: { properties: { a: 1 } } });
    const moved = await post(user, `${BLOCKS}/${id}/move`, { position: 3 });
    const commented = await post(user, "/api/v1/comments", { block_id: id, content: "Cost" });
    const deleted = await api(`${BLOCKS}/${id}`, { method: "DELETE", auth: user });
    expect([created, patched, moved, commented, deleted].map((res) => [res.status, res.queryRoundTrips])).toEqual([
      [201, 1],
      [200, 2],
      [200, 1],
      [201, 1],
      [200, 1],
    ]);
  });
});
