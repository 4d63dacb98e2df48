import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../../helpers/api";
import { BLOCKS } from "../../helpers/blocks";
import {
  expectConditionalRead,
  expectPreconditionFailed,
  expectRacingWriters,
  expectWrittenTag,
  sendWith,
} from "../../helpers/conditional";
import { createDatabase, DATABASES, getSchema, insertLegacyDatabase, schemaRecords } from "../../helpers/databases";
import { getPage, postPage } from "../../helpers/pages";

const send = sendWith;

const statusDatabase = (user: TestUser) =>
  createDatabase(user, { properties: [{ name: "Status", type: "select", options: [{ name: "Todo" }] }] });

describe("database schema validators (RFC 9110 §8.8.3, §13.1)", () => {
  it("a read of the schema answers a strong ETag; If-None-Match with it is 304 with no body", async () => {
    const user = await createUser();
    const database = await statusDatabase(user);
    await expectConditionalRead(user, `${DATABASES}/${database.id}/schema`);
  });

  it("property and option changes are held to the schema's tag: each answers the new one, a stale one is a 412 and changes nothing", async () => {
    const user = await createUser();
    const database = await statusDatabase(user);
    const base = `${DATABASES}/${database.id}/properties`;
    const status = database.prop("Status");
    const todo = database.option("Status", "Todo");
    const stale = (await getSchema(user, database.id)).headers.get("ETag") ?? "";
    const added = await send(user, "POST", base, { "If-Match": stale }, { name: "Notes", type: "text" });
    const current = await expectWrittenTag(added, stale, () => getSchema(user, database.id));
    const records = await schemaRecords(database.id);
    for (const [method, path, body] of [
      ["POST", base, { name: "Other", type: "text" }],
      ["PATCH", `${base}/${status.id}`, { name: "State" }],
      ["DELETE", `${base}/${status.id}`, undefined],
      ["POST", `${base}/${status.id}/options`, { name: "Done" }],
      ["PATCH", `${base}/${status.id}/options/${todo.id}`, { name: "To do" }],
      ["DELETE", `${base}/${status.id}/options/${todo.id}`, undefined],
    ] as const) {
      const res = await send(user, method, path, { "If-Match": stale }, body);
      expectPreconditionFailed(res, current, `${method} ${path}`);
    }
    expect(await schemaRecords(database.id)).toEqual(records);
    let tag = current ?? "";
    for (const [method, path, body] of [
      ["PATCH", `${base}/${status.id}/options/${todo.id}`, { name: "To do" }],
      ["POST", `${base}/${status.id}/options`, { name: "Done" }],
      ["DELETE", `${base}/${status.id}/options/${todo.id}`, undefined],
      ["PATCH", `${base}/${status.id}`, { name: "State" }],
      ["DELETE", `${base}/${status.id}`, undefined],
    ] as const) {
      const res = await send(user, method, path, { "If-Match": tag }, body);
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
      expect(res.headers.get("ETag"), `${method} ${path}`).not.toBe(tag);
      tag = res.headers.get("ETag") ?? "";
      expect((await getSchema(user, database.id)).headers.get("ETag")).toBe(tag);
    }
  });

  it("a change that changes nothing answers the schema's tag as it stands, and that tag goes stale at the next change", async () => {
    const user = await createUser();
    const database = await statusDatabase(user);
    const base = `${DATABASES}/${database.id}/properties`;
    const status = database.prop("Status");
    const todo = database.option("Status", "Todo");
    const tag = (await getSchema(user, database.id)).headers.get("ETag") ?? "";
    const records = await schemaRecords(database.id);
    for (const [path, body] of [
      [`${base}/${status.id}`, { name: "Status" }],
      [`${base}/${status.id}`, { type: "select" }],
      [`${base}/${status.id}/options/${todo.id}`, { name: "Todo" }],
      [`${base}/${status.id}/options/${todo.id}`, { color: todo.color }],
    ] as const) {
      const res = await send(user, "PATCH", path, { "If-Match": tag }, body);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("ETag"), `${path} ${JSON.stringify(body)}`).toBe(tag);
    }
    expect(await schemaRecords(database.id)).toEqual(records);
    // Another writer's change: the tag the no-op answered no longer matches, so nothing is overwritten.
    const renamed = await send(user, "PATCH", `${base}/${status.id}/options/${todo.id}`, {}, { name: "Approved" });
    expect(renamed.status).toBe(200);
    const stale = await send(
      user,
      "PATCH",
      `${base}/${status.id}/options/${todo.id}`,
      { "If-Match": tag },
      { name: "Draft" },
    );
    expectPreconditionFailed(stale, renamed.headers.get("ETag"), "a write with the no-op's tag");
    expect((await getSchema(user, database.id)).body.properties.find((p) => p.id === status.id)?.options).toEqual([
      expect.objectContaining({ id: todo.id, name: "Approved" }),
    ]);
  });

  it("two writers racing with one tag: exactly one wins, the other is a 412, the stored name is the winner's", async () => {
    const user = await createUser();
    const database = await statusDatabase(user);
    const path = `${DATABASES}/${database.id}/properties/${database.prop("Status").id}`;
    await expectRacingWriters({
      read: () => getSchema(user, database.id),
      write: (tag, value) => send(user, "PATCH", path, { "If-Match": tag }, { name: value }),
      stored: async () =>
        (await getSchema(user, database.id)).body.properties.find((p) => p.id === database.prop("Status").id)?.name,
    });
  });

  it("a legacy database's schema tag follows its inline schema, and so does its row's page tag", async () => {
    const user = await createUser();
    const inline = (notes: string) => [
      { id: "name", name: "Name", type: "title" },
      { id: "notes", name: notes, type: "rich_text" },
    ];
    const id = await insertLegacyDatabase(user.id, inline("Notes"));
    const row = await postPage(user, { type: "database_row", database_id: id, properties: { notes: "x" } });
    expect(row.status).toBe(201);
    const schemaTag = (await getSchema(user, id)).headers.get("ETag") ?? "";
    const pageTag = (await getPage(user, row.body.id)).headers.get("ETag") ?? "";
    // The inline schema is part of the database block: a block write renames a property.
    const renamed = await send(user, "PATCH", `${BLOCKS}/${id}`, {}, { properties: { schema: inline("Remarks") } });
    expect(renamed.status).toBe(200);
    const schema = await api<{ properties: { name: string }[] }>(`${DATABASES}/${id}/schema`, {
      auth: user,
      headers: { "If-None-Match": schemaTag },
    });
    expect(schema.status).toBe(200);
    expect(schema.body.properties.map((property) => property.name)).toEqual(["Name", "Remarks"]);
    const current = schema.headers.get("ETag") ?? "";
    expect(current).not.toBe(schemaTag);
    const page = await api<{ properties_by_name: Record<string, unknown> }>(`/api/v1/pages/${row.body.id}`, {
      auth: user,
      headers: { "If-None-Match": pageTag },
    });
    expect(page.status).toBe(200);
    expect(page.body.properties_by_name).toMatchObject({ Remarks: "x" });
    expect(page.headers.get("ETag")).not.toBe(pageTag);
    // A schema change is held to the legacy tag; the one that lands leaves the schema in records.
    const add = (tag: string) =>
      send(user, "POST", `${DATABASES}/${id}/properties`, { "If-Match": tag }, { name: "Due", type: "date" });
    expect((await add(schemaTag)).status).toBe(412);
    const added = await add(current);
    expect(added.status).toBe(201);
    const after = await getSchema(user, id);
    expect(after.body.legacy).toBe(false);
    expect(after.headers.get("ETag")).toBe(added.headers.get("ETag"));
  });

  it("a database deleted and created again with the same id has a new schema tag: the old one writes nothing", async () => {
    const user = await createUser();
    const id = crypto.randomUUID();
    const create = () => send(user, "POST", BLOCKS, {}, { id, type: "database", properties: { title: "Tasks" } });
    expect((await create()).status).toBe(201);
    const old = (await getSchema(user, id)).headers.get("ETag") ?? "";
    expect((await send(user, "DELETE", `${BLOCKS}/${id}`, {})).status).toBe(200);
    expect((await create()).status).toBe(201);
    const current = (await getSchema(user, id)).headers.get("ETag");
    expect(current).not.toBe(old);
    const records = await schemaRecords(id);
    const add = await send(
      user,
      "POST",
      `${DATABASES}/${id}/properties`,
      { "If-Match": old },
      { name: "Notes", type: "text" },
    );
    expectPreconditionFailed(add, current);
    expect(await schemaRecords(id)).toEqual(records);
  });

  it("schema reads and conditional changes keep their D1 round trips", async () => {
    const user = await createUser();
    const database = await statusDatabase(user);
    const read = await getSchema(user, database.id);
    const notModified = await send(user, "GET", `${DATABASES}/${database.id}/schema`, {
      "If-None-Match": read.headers.get("ETag") ?? "",
    });
    expect(notModified.status).toBe(304);
    expect(notModified.queryRoundTrips).toBe(read.queryRoundTrips);
    const path = `${DATABASES}/${database.id}/properties/${database.prop("Status").id}`;
    const renamed = await send(user, "PATCH", path, { "If-Match": read.headers.get("ETag") ?? "" }, { name: "State" });
    expect(renamed.status).toBe(200);
    expect(renamed.queryRoundTrips).toBe(2);
    const stale = await send(user, "PATCH", path, { "If-Match": read.headers.get("ETag") ?? "" }, { name: "Phase" });
    expect(stale.status).toBe(412);
    expect(stale.queryRoundTrips).toBe(1);
  });

  it("another user's database is a 404 whatever the preconditions", async () => {
    const owner = await createUser();
    const other = await createUser();
    const database = await statusDatabase(owner);
    const base = `${DATABASES}/${database.id}`;
    expect((await send(other, "GET", `${base}/schema`, { "If-None-Match": "*" })).status).toBe(404);
    expect(
      (await send(other, "POST", `${base}/properties`, { "If-Match": "*" }, { name: "X", type: "text" })).status,
    ).toBe(404);
  });
});
