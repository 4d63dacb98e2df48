import { describe, expect, it } from "vitest";
import { api, createUser } from "../../helpers/api";
import { addProperty, createDatabase, createRow } from "../../helpers/databases";
import { createPage, getPage, putPage, storedProperties } from "../../helpers/pages";

const WRITERS = 24;
const keys = Array.from({ length: WRITERS }, (_, i) => `k${String(i).padStart(2, "0")}`);

describe("PUT /api/v1/pages/{id}: concurrent writers of different keys", () => {
  it(`${WRITERS} concurrent PUTs to one page, each setting its own key: every key is kept`, async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Busy page", properties: { base: true } });

    const responses = await Promise.all(keys.map((key, i) => putPage(user, page.id, { properties: { [key]: i } })));

    for (const res of responses) expect(res.status).toBe(200);
    const expected = { title: "Busy page", base: true, ...Object.fromEntries(keys.map((key, i) => [key, i])) };
    expect(await storedProperties(page.id)).toEqual(expected);
    expect((await getPage(user, page.id)).body.properties).toEqual(expected);
  });

  it(`${WRITERS} concurrent PUTs to one nested object of a page: every nested key is kept`, async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Nested", properties: { meta: { original: 1 } } });

    const responses = await Promise.all(
      keys.map((key, i) => putPage(user, page.id, { properties: { meta: { [key]: `v${i}` } } })),
    );

    for (const res of responses) expect(res.status).toBe(200);
    const meta = (await storedProperties(page.id))?.meta;
    expect(meta).toEqual({ original: 1, ...Object.fromEntries(keys.map((key, i) => [key, `v${i}`])) });
  });

  it(`${WRITERS} concurrent PUTs to one row, each setting a different property of the schema: every value is kept`, async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const properties = [];
    for (const key of keys)
      properties.push(await addProperty(user, database.id, { name: `Field ${key}`, type: "text" }));
    const row = await createRow(user, database.id, { title: "Busy row" });

    // Half by display name (translated to ids on write), half by canonical id.
    const responses = await Promise.all(
      properties.map((property, i) =>
        putPage(user, row.id, { properties: { [i % 2 === 0 ? property.name : property.id]: `value ${i}` } }),
      ),
    );

    for (const res of responses) expect(res.status).toBe(200);
    const titleId = database.prop("title").id;
    const expected = {
      [titleId]: "Busy row",
      ...Object.fromEntries(properties.map((property, i) => [property.id, `value ${i}`])),
    };
    expect(await storedProperties(row.id)).toEqual(expected);
    const read = await getPage(user, row.id);
    expect(read.body.properties).toEqual(expected);
    for (const [i, property] of properties.entries()) {
      expect(read.body.properties_by_name?.[property.name]).toBe(`value ${i}`);
    }
  });

  it(`${WRITERS} concurrent PATCHes through /api/v1/blocks to one row: every value is kept`, async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const properties = [];
    for (const key of keys) properties.push(await addProperty(user, database.id, { name: key, type: "number" }));
    const row = await createRow(user, database.id, { title: "Patched row" });

    const responses = await Promise.all(
      properties.map((property, i) =>
        api(`/api/v1/blocks/${row.id}`, { method: "PATCH", auth: user, body: { properties: { [property.name]: i } } }),
      ),
    );

    for (const res of responses) expect(res.status).toBe(200);
    const stored = await storedProperties(row.id);
    for (const [i, property] of properties.entries()) expect(stored?.[property.id]).toBe(i);
    expect(Object.keys(stored ?? {})).toHaveLength(WRITERS + 1);
  });
});
