import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { ALL_SCOPES } from "../../../src/auth/scopes";
import { actingAs, backgroundUserContext, createContext, withD1 } from "../../../src/lib/context";
import { updateTypedBlock } from "../../../src/services/block-writes/writes";
import { exportPage } from "../../../src/services/exports/export";
import { api, createUser } from "../../helpers/api";
import { BLOCKS, type Block } from "../../helpers/blocks";
import { createDatabase, createRow, DATABASES, storedRows } from "../../helpers/databases";
import { createView, getView, patchView } from "../../helpers/views";

// Writes validated against state read earlier land only while that state holds:
// each case here changes the state between the read and the write.

describe("a row write validated against one database", () => {
  it("does not land in the row once it has moved to another database; it is validated again there", async () => {
    const user = await createUser();
    const first = await createDatabase(user, {
      properties: [{ name: "Status", type: "select", options: [{ name: "A" }] }],
    });
    const second = await createDatabase(user);
    const row = await createRow(user, first.id, { title: "Mover" });
    const asRead = (await api<Block>(`${BLOCKS}/${row.id}`, { auth: user })).body;

    // Someone moves the row after this write read it.
    const moved = await api(`${BLOCKS}/${row.id}`, { method: "PATCH", auth: user, body: { database_id: second.id } });
    expect(moved.status).toBe(200);

    const ctx = backgroundUserContext(env, createExecutionContext(), user.id);
    const write = updateTypedBlock(ctx, row.id, { properties: { Status: "A" } }, { block: asRead, schema: undefined });
    await expect(write).rejects.toMatchObject({ status: 400 });
    const stored = await storedRows(second.id);
    expect(Object.keys(stored)).toEqual([row.id]);
    expect(Object.keys(stored[row.id] ?? {})).toEqual([second.prop("title").id]);
  });
});

describe("schema changes and the views laid out by a property", () => {
  it("retyping a date-like property to another date-like type is allowed while a calendar uses it", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const created = database.prop("created_time");
    await createView(user, database.id, { view_type: "calendar", date_property: created.id });
    const res = await api(`${DATABASES}/${database.id}/properties/${created.id}`, {
      method: "PATCH",
      auth: user,
      body: { type: "last_edited_time" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.roundTrips).toBeLessThanOrEqual(3);
  });

  it("removing an unused property costs two round trips after auth (no extra read for views)", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [{ name: "Notes", type: "text" }] });
    const res = await api(`${DATABASES}/${database.id}/properties/${database.prop("Notes").id}`, {
      method: "DELETE",
      auth: user,
    });
    expect(res.status).toBe(200);
    expect(res.queryRoundTrips).toBe(2);
  });
});

describe("property names whose keys collided before names were unique whatever their case", () => {
  it("a property the migration gave its own key can still be retyped and renamed", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    // As migration 0005 leaves an older pair of names differing only in case.
    await env.DB.batch([
      env.DB.prepare(
        `INSERT INTO database_properties (id, database_id, name, name_key, type, options, position)
         VALUES ('prop_upper', ?, 'Stage', 'stage', 'text', '[]', 10),
                ('prop_lower', ?, 'stage', 'stage' || char(0) || 'prop_lower', 'text', '[]', 11)`,
      ).bind(database.id, database.id),
    ]);
    const property = (id: string) => `${DATABASES}/${database.id}/properties/${id}`;
    const retyped = await api(property("prop_lower"), { method: "PATCH", auth: user, body: { type: "number" } });
    expect(retyped.status, JSON.stringify(retyped.body)).toBe(200);
    const clash = await api(property("prop_lower"), { method: "PATCH", auth: user, body: { name: "STAGE" } });
    expect(clash.status).toBe(409);
    const renamed = await api(property("prop_lower"), { method: "PATCH", auth: user, body: { name: "State" } });
    expect(renamed.status).toBe(200);
  });

  it("a constraint the database enforces is a 409, never a 500", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [{ name: "Notes", type: "text" }] });
    // A name_key that would collide although the names differ (as folded by SQLite's lower() for old data).
    await env.DB.prepare("UPDATE database_properties SET name_key = 'été' WHERE database_id = ? AND name = 'Notes'")
      .bind(database.id)
      .run();
    const res = await api(`${DATABASES}/${database.id}/properties`, {
      method: "POST",
      auth: user,
      body: { name: "ÉTÉ", type: "text" },
    });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "conflict" });
  });
});

describe("saved-view filters naming an option", () => {
  it("follow a rename whether they name it as a string or as {name}, and the view stays patchable", async () => {
    const user = await createUser();
    const database = await createDatabase(user, {
      properties: [{ name: "Status", type: "select", options: [{ name: "Todo" }, { name: "Done" }] }],
    });
    const view = await createView(user, database.id, {
      view_type: "table",
      filters: [
        { property: "Status", operator: "equals", value: { name: "Todo" } },
        { property: "Status", operator: "not_equals", value: "Todo" },
      ],
    });
    const todo = database.option("Status", "Todo");
    const status = database.prop("Status");
    const renamed = await api(`${DATABASES}/${database.id}/properties/${status.id}/options/${todo.id}`, {
      method: "PATCH",
      auth: user,
      body: { name: "To do" },
    });
    expect(renamed.status).toBe(200);
    expect((await getView(user, view.id)).body.filters.map((filter) => filter.value)).toEqual([
      { name: "To do" },
      "To do",
    ]);
    expect((await patchView(user, view.id, { name: "Renamed view" })).status).toBe(200);
  });
});

describe("a database export that fails part-way", () => {
  it("logs the failure with the request id and ends the stream in error, not as a complete file", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const titleId = database.prop("title").id;
    const timestamp = new Date().toISOString();
    // 2,001 rows: the first read (2,000) succeeds before the file begins; D1 fails for the second.
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2001)
        INSERT INTO blocks (id, type, database_id, properties, position, created_by, last_edited_by, created_at,
          updated_at)
        SELECT printf('%s-%06d', ?, i), 'database_row', ?, json_object(?, 'Row ' || i), i, ?, ?, ?, ? FROM n`,
    )
      .bind(database.id, database.id, titleId, user.id, user.id, timestamp, timestamp)
      .run();
    let failing = false;
    const unavailable = (d1: D1Database) =>
      new Proxy(d1, {
        get(target, property) {
          if (property === "prepare" && failing) {
            return () => {
              throw new Error("D1 is unavailable");
            };
          }
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    const ctx = actingAs(withD1(createContext({ env, requestId: "export-failure-1" }), unavailable), {
      userId: user.id,
      via: "api_key",
      apiKeyId: null,
      scopes: ALL_SCOPES,
    });
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const file = await exportPage(ctx, database.id, "csv");
      expect(file.rows).toEqual({ exported: 2001, truncated: false });
      failing = true;
      await expect(new Response(file.body).text()).rejects.toThrow("D1 is unavailable");
      expect(logged.mock.calls.map((call) => String(call[0])).join("\n")).toContain('"request_id":"export-failure-1"');
    } finally {
      logged.mockRestore();
    }
  });
});

describe("a database export beyond the rows one export carries", () => {
  it("holds the first rows and says it was cut, in its headers' figures", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    for (const title of ["One", "Two", "Three", "Four"]) await createRow(user, database.id, { title });
    const ctx = backgroundUserContext({ ...env, EXPORT_MAX_ROWS: "3" }, createExecutionContext(), user.id);
    const file = await exportPage(ctx, database.id, "csv");
    expect(file.rows).toEqual({ exported: 3, truncated: true });
    const csv = await new Response(file.body).text();
    expect(csv.split("\r\n").map((line) => line.split(",")[0])).toEqual(["title", "One", "Two", "Three"]);

    const whole = await api(`/api/v1/pages/${database.id}/export`, { auth: user });
    expect(whole.headers.get("X-Export-Row-Count")).toBe("4");
    expect(whole.headers.get("X-Export-Truncated")).toBeNull();
  });
});
