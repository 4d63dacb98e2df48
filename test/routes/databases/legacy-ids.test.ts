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
