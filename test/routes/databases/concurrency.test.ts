import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type ApiResponse, api, createUser, type TestUser } from "../../helpers/api";
import { BLOCKS, type Block } from "../../helpers/blocks";
import {
  createDatabase,
  createRow,
  DATABASES,
  getSchema,
  insertLegacyDatabase,
  type Property,
  postProperty,
  type SelectOption,
  schemaRecords,
  storedRows,
  type TestDatabase,
} from "../../helpers/databases";
import { putPage } from "../../helpers/pages";

// Schema changes, and row writes validated against a schema, race each other
// here through the Worker. Whatever the interleaving: no 500, every
// acknowledged change is in the stored schema, and no row holds a value the
// stored schema does not explain.

const statusesOf = (responses: ApiResponse[]) => responses.map((res) => res.status).sort();

function expectNoServerError(responses: ApiResponse[]) {
  for (const res of responses) expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
}

const optionsPath = (databaseId: string, propertyId: string) =>
  `${DATABASES}/${databaseId}/properties/${propertyId}/options`;

const postOption = (user: TestUser, databaseId: string, propertyId: string, body: unknown) =>
  api<SelectOption>(optionsPath(databaseId, propertyId), { method: "POST", auth: user, body });

const patchOption = (user: TestUser, databaseId: string, propertyId: string, optionId: string, body: unknown) =>
  api<SelectOption>(`${optionsPath(databaseId, propertyId)}/${optionId}`, { method: "PATCH", auth: user, body });

const deleteOption = (user: TestUser, databaseId: string, propertyId: string, optionId: string) =>
  api(`${optionsPath(databaseId, propertyId)}/${optionId}`, { method: "DELETE", auth: user });

const patchProperty = (user: TestUser, databaseId: string, propertyId: string, body: unknown) =>
  api<Property>(`${DATABASES}/${databaseId}/properties/${propertyId}`, { method: "PATCH", auth: user, body });

async function storedOptions(databaseId: string, propertyId: string): Promise<SelectOption[]> {
  const record = (await schemaRecords(databaseId)).find((candidate) => candidate.id === propertyId);
  if (!record) throw new Error(`no schema record ${propertyId}`);
  return record.options;
}

const LEGACY_SCHEMA = [
  { id: "name", name: "Name", type: "title" },
  { id: "stage", name: "Stage", type: "select", options: ["Idea", "Shipped"] },
  { id: "score", name: "Score", type: "number" },
];

describe("concurrent schema changes", () => {
  it("10 concurrent first property adds to a legacy database: all 201, each property once", async () => {
    const user = await createUser();
    const id = await insertLegacyDatabase(user.id, LEGACY_SCHEMA);
    const names = Array.from({ length: 10 }, (_, i) => `Field ${i}`);

    const responses = await Promise.all(names.map((name) => postProperty(user, id, { name, type: "text" })));

    expect(statusesOf(responses), JSON.stringify(responses.map((res) => res.body))).toEqual(names.map(() => 201));
    const records = await schemaRecords(id);
    // The inline schema written out exactly once, and every added property once.
    expect(records.map((record) => record.name).sort()).toEqual(["Name", "Score", "Stage", ...names].sort());
    expect(new Set(records.map((record) => record.id)).size).toBe(records.length);
    for (const res of responses) expect(records.map((record) => record.id)).toContain((res.body as Property).id);
    const schema = await getSchema(user, id);
    expect(schema.body.legacy).toBe(false);
    expect(schema.body.properties).toHaveLength(13);
  });

  it("10 concurrent adds of one property name: exactly one 201, the others 409", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });

    const responses = await Promise.all(
      Array.from({ length: 10 }, () => postProperty(user, database.id, { name: "Owner", type: "text" })),
    );

    expect(statusesOf(responses), JSON.stringify(responses.map((res) => res.body))).toEqual([
      201,
      ...Array(9).fill(409),
    ]);
    const owners = (await schemaRecords(database.id)).filter((record) => record.name === "Owner");
    expect(owners).toHaveLength(1);
    expect(owners[0]?.id).toBe(responses.find((res) => res.status === 201)?.body.id);
  });

  it("concurrent adds of Owner, owner and OWNER: one 201, two 409 (names unique whatever their case)", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });

    for (let round = 0; round < 3; round++) {
      const base = `Owner${round}`;
      const names = [base, base.toLowerCase(), base.toUpperCase()];
      const responses = await Promise.all(names.map((name) => postProperty(user, database.id, { name, type: "text" })));

      expect(statusesOf(responses), JSON.stringify(responses.map((res) => res.body))).toEqual([201, 409, 409]);
      const matching = (await schemaRecords(database.id)).filter((r) => r.name.toLowerCase() === base.toLowerCase());
      expect(matching.map((record) => record.name)).toEqual([responses.find((res) => res.status === 201)?.body.name]);
    }
  });
});

describe("concurrent option changes", () => {
  it("20 concurrent option adds to one property: every acknowledged option is in the schema", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const status = database.prop("Status");
    const names = Array.from({ length: 20 }, (_, i) => `Option ${i}`);

    const responses = await Promise.all(names.map((name) => postOption(user, database.id, status.id, { name })));

    expectNoServerError(responses);
    const acknowledged = responses.filter((res) => res.status === 201).map((res) => res.body);
    expect(acknowledged.length).toBeGreaterThan(0);
    const options = await storedOptions(database.id, status.id);
    for (const option of acknowledged) expect(options).toContainEqual(option);
    // Nothing but the original options and the acknowledged ones.
    expect(options).toHaveLength(status.options.length + acknowledged.length);
    expect(new Set(options.map((option) => option.name)).size).toBe(options.length);
  });

  it("property renames racing with option adds: no acknowledged add is lost", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const tags = database.prop("Tags");

    const adds = Array.from({ length: 12 }, (_, i) => postOption(user, database.id, tags.id, { name: `Added ${i}` }));
    const renames = Array.from({ length: 6 }, (_, i) =>
      patchProperty(user, database.id, tags.id, { name: `Tags ${i}` }),
    );
    const [addResponses, renameResponses] = await Promise.all([Promise.all(adds), Promise.all(renames)]);

    expectNoServerError([...addResponses, ...renameResponses]);
    const options = await storedOptions(database.id, tags.id);
    const acknowledged = addResponses.filter((res) => res.status === 201).map((res) => res.body);
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const option of acknowledged) expect(options).toContainEqual(option);
    for (const option of tags.options) expect(options).toContainEqual(option);
    const record = (await schemaRecords(database.id)).find((candidate) => candidate.id === tags.id);
    expect(renameResponses.filter((res) => res.status === 200).map((res) => res.body.name)).toContain(record?.name);
  });

  it("option removals racing with property renames: a removed option never comes back", async () => {
    const user = await createUser();
    const database = await createDatabase(user, {
      properties: [
        {
          name: "Colour",
          type: "multi_select",
          options: Array.from({ length: 10 }, (_, i) => ({ name: `Shade ${i}`, color: "blue" })),
        },
      ],
    });
    const colour = database.prop("Colour");
    const row = await createRow(user, database.id, { title: "Painted", Colour: ["Shade 0", "Shade 1", "Shade 9"] });

    const removes = colour.options.map((option) => deleteOption(user, database.id, colour.id, option.id));
    const renames = Array.from({ length: 10 }, (_, i) =>
      patchProperty(user, database.id, colour.id, { name: `Colour ${i}` }),
    );
    const [removeResponses, renameResponses] = await Promise.all([Promise.all(removes), Promise.all(renames)]);

    expectNoServerError([...removeResponses, ...renameResponses]);
    const removed = colour.options.filter((_, i) => removeResponses[i]?.status === 200);
    expect(removed.length).toBeGreaterThan(0);
    const options = await storedOptions(database.id, colour.id);
    for (const option of removed) expect(options.map((o) => o.id)).not.toContain(option.id);
    // Those still there are exactly the ones whose removal was not acknowledged.
    expect(options.map((o) => o.id).sort()).toEqual(
      colour.options
        .filter((option) => !removed.includes(option))
        .map((o) => o.id)
        .sort(),
    );
    // And the row holds only options the schema still has.
    const stored = (await storedRows(database.id))[row.id]?.[colour.id];
    for (const value of (stored as SelectOption[] | undefined) ?? []) expect(options).toContainEqual(value);
  });
});

/** Every select value stored under `propertyId` in the database's rows is an option of the stored schema, exactly. */
async function expectRowsExplainedBySchema(databaseId: string, propertyId: string) {
  const options = await storedOptions(databaseId, propertyId);
  const rows = await storedRows(databaseId);
  let checked = 0;
  for (const [rowId, properties] of Object.entries(rows)) {
    const value = properties?.[propertyId];
    if (value === undefined || value === null) continue;
    checked++;
    expect(options, `row ${rowId} holds ${JSON.stringify(value)}`).toContainEqual(value);
  }
  return checked;
}

describe("option renames racing with row writes", () => {
  it("rows never keep an option name or colour the schema no longer has, nor does a database duplicated meanwhile", async () => {
    const user = await createUser();
    const database: TestDatabase = await createDatabase(user);
    const status = database.prop("Status");
    const todo = database.option("Status", "Todo");
    const existing = await Promise.all(
      Array.from({ length: 6 }, (_, i) => createRow(user, database.id, { title: `Existing ${i}`, Status: "Doing" })),
    );

    // Rounds: each starts a change of the option (a recolour; the last one a
    // rename) together with writers setting Status by the option's name, half
    // creating rows, half updating existing ones; one round also duplicates the database.
    const writeRow = (round: number, n: number) => {
      const target = existing[(round + n) % existing.length];
      return n % 2 === 0 || !target
        ? api(`/api/v1/pages`, {
            method: "POST",
            auth: user,
            body: {
              type: "database_row",
              database_id: database.id,
              properties: { title: `Round ${round}.${n}`, Status: "Todo" },
            },
          })
        : putPage(user, target.id, { properties: { Status: "Todo" } });
    };
    const colours = ["blue", "green", "purple", "orange", "pink", "brown", "gray", "yellow"];
    const changes: ApiResponse[] = [];
    const responses: ApiResponse[] = [];
    let duplicate: ApiResponse<Block> | undefined;
    for (const [round, color] of [...colours, "red"].entries()) {
      const last = round === colours.length;
      const change = patchOption(user, database.id, status.id, todo.id, last ? { name: "Pending", color } : { color });
      const copy =
        round === 4 ? api<Block>(`${BLOCKS}/${database.id}/duplicate`, { method: "POST", auth: user }) : null;
      const writes = Array.from({ length: 8 }, (_, n) => writeRow(round, n));
      changes.push(await change);
      responses.push(...(await Promise.all(writes)));
      if (copy) duplicate = await copy;
    }

    for (const res of changes) expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const res of responses) expect([200, 201, 400], JSON.stringify(res.body)).toContain(res.status);
    expect(responses.filter((res) => res.status !== 400).length, "row writes that landed").toBeGreaterThan(0);
    expect((await storedOptions(database.id, status.id)).find((o) => o.id === todo.id)).toEqual({
      id: todo.id,
      name: "Pending",
      color: "red",
    });
    expect(await expectRowsExplainedBySchema(database.id, status.id)).toBeGreaterThan(existing.length);

    // The copy holds its source's rows as they were when copied: each explained by the copy's schema.
    expect(duplicate?.status, JSON.stringify(duplicate?.body)).toBe(201);
    const copyId = duplicate?.body.id as string;
    const { results } = await env.DB.prepare("SELECT count(*) AS n FROM blocks WHERE database_id = ?")
      .bind(copyId)
      .all<{ n: number }>();
    expect(results[0]?.n, "rows copied").toBeGreaterThan(0);
    await expectRowsExplainedBySchema(copyId, status.id);
  });
});
