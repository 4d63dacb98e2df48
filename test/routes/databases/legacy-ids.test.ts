import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type ApiResponse, api, createUser, type TestUser } from "../../helpers/api";
import { DATABASES, getSchema, insertLegacyDatabase, queryRows, schemaRecords } from "../../helpers/databases";
import { postPage, storedProperties } from "../../helpers/pages";

// A legacy inline schema may hold property ids that no SQLite JSON path can
// address: a NUL ends the path early, a lone surrogate cannot travel as UTF-8.
// Such properties are skipped when the schema is read, so no request ever
// builds a path from them (which used to fail with `D1_ERROR: unrecognized token`).

const NUL_ID = "bad\u0000id";
const SURROGATE_ID = "lone\uD800";

const LEGACY_SCHEMA = [
  { id: "name", name: "Name", type: "title" },
  { id: NUL_ID, name: "Nul", type: "select", options: ["A", "B"] },
  { id: SURROGATE_ID, name: "Lone", type: "multi_select", options: ["X"] },
  { id: `tail${NUL_ID}`, name: "Words", type: "text" },
  { id: "stage", name: "Stage", type: "select", options: ["Idea", "Shipped"] },
];

const propertyPath = (databaseId: string, propertyId: string) =>
  `${DATABASES}/${databaseId}/properties/${encodeURIComponent(propertyId)}`;

function expectHandled(res: ApiResponse, allowed: number[], what: string) {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).not.toBe(500);
  expect(allowed, `${what}: ${res.status} ${JSON.stringify(res.body)}`).toContain(res.status);
}

async function legacyDatabase(user: TestUser) {
  const id = await insertLegacyDatabase(user.id, LEGACY_SCHEMA);
  const row = await postPage(user, {
    type: "database_row",
    database_id: id,
    properties: { Name: "Row", Stage: "Idea" },
  });
  expect(row.status, JSON.stringify(row.body)).toBe(201);
  return { id, rowId: row.body.id };
}

describe("legacy databases whose inline schema holds ids no JSON path can address", () => {
  it("row queries filtering or sorting on such a property are answered (never a 500)", async () => {
    const user = await createUser();
    const { id, rowId } = await legacyDatabase(user);

    const requests: [string, unknown][] = [
      ["filter on the NUL id", { filters: [{ property: "Nul", operator: "equals", value: "A" }] }],
      ["is_empty on the NUL id", { filters: [{ property: "Nul", operator: "is_empty" }] }],
      ["filter on the lone surrogate", { filters: [{ property: "Lone", operator: "contains", value: "X" }] }],
      [
        "text filter on an id with an inner NUL",
        { filters: [{ property: "Words", operator: "contains", value: "a" }] },
      ],
      ["sort on the NUL id", { sorts: [{ property: "Nul", direction: "asc" }] }],
      ["sort on the lone surrogate", { sorts: [{ property: "Lone", direction: "desc" }] }],
      ["filter by the raw NUL id", { filters: [{ property: NUL_ID, operator: "is_not_empty" }] }],
    ];
    for (const [what, body] of requests) expectHandled(await queryRows(user, id, body), [200, 400], what);

    // The addressable properties still work.
    const ok = await queryRows(user, id, {
      filters: [{ property: "Stage", operator: "equals", value: "Idea" }],
      sorts: [{ property: "Name", direction: "asc" }],
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.map((row) => row.id)).toEqual([rowId]);
  });

  it("deleting such a property, or changing its options, is answered (never a 500) and stores nothing", async () => {
    const user = await createUser();
    const { id, rowId } = await legacyDatabase(user);
    const rowBefore = await storedProperties(rowId);

    for (const propertyId of [NUL_ID, `tail${NUL_ID}`]) {
      const path = propertyPath(id, propertyId);
      expectHandled(await api(path, { method: "DELETE", auth: user }), [200, 400, 404], `DELETE ${propertyId}`);
      expectHandled(
        await api(path, { method: "PATCH", auth: user, body: { name: "Renamed" } }),
        [200, 400, 404],
        `PATCH ${propertyId}`,
      );
      expectHandled(
        await api(`${path}/options`, { method: "POST", auth: user, body: { name: "C" } }),
        [201, 400, 404],
        `POST option of ${propertyId}`,
      );
      expectHandled(
        await api(`${path}/options/A`, { method: "PATCH", auth: user, body: { name: "AA" } }),
        [200, 400, 404],
        `PATCH option of ${propertyId}`,
      );
      expectHandled(
        await api(`${path}/options/A`, { method: "DELETE", auth: user }),
        [200, 400, 404],
        `DELETE option of ${propertyId}`,
      );
    }

    // Nothing of it reached the stored rows or any schema record.
    expect(await storedProperties(rowId)).toEqual(rowBefore);
    expect((await schemaRecords(id)).map((record) => record.id)).not.toContain(NUL_ID);
  });

  it("option changes on an addressable property of the same database work", async () => {
    const user = await createUser();
    const { id, rowId } = await legacyDatabase(user);

    const renamed = await api(`${propertyPath(id, "stage")}/options/Idea`, {
      method: "PATCH",
      auth: user,
      body: { name: "Concept" },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const added = await api(`${propertyPath(id, "stage")}/options`, {
      method: "POST",
      auth: user,
      body: { name: "New" },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const removed = await api(propertyPath(id, "stage"), { method: "DELETE", auth: user });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);

    // The unaddressable properties were never part of the schema, so never written out as records.
    const schema = await getSchema(user, id);
    expect(schema.status).toBe(200);
    expect(schema.body.properties.map((property) => property.name)).toEqual(["Name"]);
    expect((await schemaRecords(id)).map((record) => record.id)).toEqual(["name"]);
    expect(await storedProperties(rowId)).toEqual({ name: "Row" });
  });
});

describe("schema records whose ids no JSON path can address (stored before inline schemas were read strictly)", () => {
  /**
   * A database with a text property and a select whose ids then get a NUL, straight in D1. (A lone
   * surrogate cannot be stored: D1 receives text as UTF-8, where it becomes U+FFFD.)
   */
  async function databaseWithRecords(user: TestUser) {
    const res = await postPage(user, {
      type: "database",
      title: "Stored",
      properties: {
        schema: [
          { id: "words", name: "Words", type: "text" },
          { id: "pick", name: "Pick", type: "select", options: ["A"] },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = res.body.id;
    const row = await postPage(user, {
      type: "database_row",
      database_id: id,
      title: "Row",
      properties: { Pick: "A" },
    });
    expect(row.status, JSON.stringify(row.body)).toBe(201);
    await env.DB.batch(
      [
        ["words", NUL_ID],
        ["pick", `pick${NUL_ID}`],
      ].map(([from, to]) =>
        env.DB.prepare("UPDATE database_properties SET id = ? WHERE database_id = ? AND id = ?").bind(to, id, from),
      ),
    );
    return { id, rowId: row.body.id };
  }

  it("a row query filtering or sorting on such a property is a 400 naming it, never a 500", async () => {
    const user = await createUser();
    const { id } = await databaseWithRecords(user);
    const requests: [string, unknown][] = [
      ["contains on the NUL id", { filters: [{ property: "Words", operator: "contains", value: "a" }] }],
      ["equals on the NUL id", { filters: [{ property: "Words", operator: "equals", value: "a" }] }],
      ["is_empty on the NUL id", { filters: [{ property: "Words", operator: "is_empty" }] }],
      ["sort on the NUL id", { sorts: [{ property: "Words", direction: "asc" }] }],
      ["two sorts on the NUL id", { sorts: [{ property: "title" }, { property: "Words", direction: "desc" }] }],
      ["equals on a select's NUL id", { filters: [{ property: "Pick", operator: "equals", value: "A" }] }],
      ["sort on a select's NUL id", { sorts: [{ property: "Pick" }, { property: "title" }] }],
    ];
    for (const [what, body] of requests) {
      const res = await queryRows(user, id, body);
      expectHandled(res, [400], what);
      expect(res.body, what).toMatchObject({ code: "validation_failed", details: { property_id: expect.any(String) } });
    }
    expect((await queryRows(user, id, { sorts: [{ property: "title" }] })).status).toBe(200);
  });

  it("such a property can be removed (its values stay unreachable), and the rest of the schema works", async () => {
    const user = await createUser();
    const { id } = await databaseWithRecords(user);
    // (A lone surrogate cannot be written in a URL: only the NUL id can be named in the path.)
    const res = await api(propertyPath(id, NUL_ID), { method: "DELETE", auth: user });
    expectHandled(res, [200], "DELETE the NUL id");
    expect((await schemaRecords(id)).map((record) => record.id)).not.toContain(NUL_ID);
    expect(
      (await queryRows(user, id, { filters: [{ property: "title", operator: "equals", value: "Row" }] })).status,
    ).toBe(200);
  });

  it("a title property with such an id: a row's backlinks are listed without its title, never a 500", async () => {
    const user = await createUser();
    const target = await postPage(user, { title: "Target" });
    const { id } = await databaseWithRecords(user);
    const source = await postPage(user, {
      type: "database_row",
      database_id: id,
      title: "Source row",
      content: [{ type: "paragraph", children: [{ text: "@Target", mention: { type: "page", id: target.body.id } }] }],
    });
    expect(source.status, JSON.stringify(source.body)).toBe(201);
    await env.DB.prepare("UPDATE database_properties SET id = ? WHERE database_id = ? AND type = 'title'")
      .bind(`title${NUL_ID}`, id)
      .run();
    const backlinks = await api<{ source_block_id: string }[]>(`/api/v1/backlinks/${target.body.id}`, { auth: user });
    expectHandled(backlinks, [200], "backlinks");
    expect(backlinks.body.map((link) => link.source_block_id)).toEqual([source.body.id]);
  });
});
