import { describe, expect, it } from "vitest";
import { api, createUser } from "../../helpers/api";
import { storedRow } from "../../helpers/blocks";
import {
  craftedTag,
  expectConditionalRead,
  expectPreconditionFailed,
  expectRacingWriters,
  expectWrittenTag,
  STRONG_TAG,
  sendWith,
  tagContents,
} from "../../helpers/conditional";
import { createDatabase, createRow, DATABASES } from "../../helpers/databases";
import { createPage, getPage, PAGES } from "../../helpers/pages";

const send = sendWith<{ id: string }>;

describe("page validators (RFC 9110 §8.8.3, §13.1)", () => {
  it("a read answers a strong ETag; If-None-Match with it is 304 with no body", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Plan" });
    await expectConditionalRead(user, `${PAGES}/${page.id}`);
  });

  it("a creation answers the new page's ETag (a row's too), the one a read of it answers", async () => {
    const user = await createUser();
    const page = await send(user, "POST", PAGES, {}, { title: "New" });
    await expectWrittenTag(page, null, () => getPage(user, page.body.id));
    const database = await createDatabase(user, { properties: [{ name: "Notes", type: "text" }] });
    const row = await send(user, "POST", "/api/pages", {}, { type: "database_row", database_id: database.id });
    await expectWrittenTag(row, null, () => getPage(user, row.body.id));
  });

  it("a row's conditional reads and writes keep their D1 round trips (PUT and PATCH: one read, one write)", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [{ name: "Notes", type: "text" }] });
    const row = await createRow(user, database.id, { Notes: "a" });
    const read = await getPage(user, row.id);
    const tagOf = async (path: string) => (await api(path, { auth: user })).headers.get("ETag") ?? "";
    const notModified = await send(user, "GET", `${PAGES}/${row.id}`, {
      "If-None-Match": await tagOf(`${PAGES}/${row.id}`),
    });
    expect(notModified.status).toBe(304);
    expect(notModified.queryRoundTrips).toBe(read.queryRoundTrips);
    for (const [method, path, notes] of [
      ["PUT", `${PAGES}/${row.id}`, "b"],
      ["PATCH", `/api/v1/blocks/${row.id}`, "c"],
    ] as const) {
      const written = await send(
        user,
        method,
        path,
        { "If-Match": await tagOf(path) },
        { properties: { Notes: notes } },
      );
      expect(written.status, method).toBe(200);
      expect(written.queryRoundTrips, method).toBe(2);
    }
    const stale = await send(user, "PUT", `${PAGES}/${row.id}`, { "If-Match": read.headers.get("ETag") ?? "" }, {});
    expect(stale.status).toBe(412);
  });

  it("PUT with the current tag answers the new one, which a read matches; a stale tag is 412 and writes nothing", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Plan" });
    const tag = (await getPage(user, page.id)).headers.get("ETag") ?? "";
    const put = await send(user, "PUT", `${PAGES}/${page.id}`, { "If-Match": tag }, { title: "Plan B" });
    const current = await expectWrittenTag(put, tag, () => getPage(user, page.id));
    const stored = await storedRow(page.id);
    for (const [method, query, body] of [
      ["PUT", "", { title: "clobber" }],
      ["DELETE", "", undefined],
      ["DELETE", "?permanent=true", undefined],
    ] as const) {
      const res = await send(user, method, `${PAGES}/${page.id}${query}`, { "If-Match": tag }, body);
      expectPreconditionFailed(res, current, `${method}${query}`);
    }
    expect(await storedRow(page.id)).toEqual(stored);
    const trashed = await send(user, "DELETE", `${PAGES}/${page.id}`, { "If-Match": current ?? "" });
    expect(trashed.status).toBe(200);
    // Still there, in the trash, with a new tag: what a permanent delete must now match.
    const inTrash = trashed.headers.get("ETag");
    expect(inTrash).toMatch(STRONG_TAG);
    expect(inTrash).not.toBe(current);
    const permanently = `${PAGES}/${page.id}?permanent=true`;
    expectPreconditionFailed(await send(user, "DELETE", permanently, { "If-Match": current ?? "" }), inTrash);
    const deleted = await send(user, "DELETE", permanently, { "If-Match": inTrash ?? "" });
    expect(deleted.status).toBe(200);
    expect(deleted.headers.get("ETag")).toBeNull();
  });

  it("a row moved to the trash answers its new tag (its database's schema version in it), which its permanent delete matches", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [{ name: "Notes", type: "text" }] });
    const row = await createRow(user, database.id, { title: "Row" });
    const trashed = await send(user, "DELETE", `${PAGES}/${row.id}`, {});
    expect(trashed.status).toBe(200);
    const tag = trashed.headers.get("ETag");
    expect(tag).toMatch(STRONG_TAG);
    const deleted = await send(user, "DELETE", `${PAGES}/${row.id}?permanent=true`, { "If-Match": tag ?? "" });
    expect(deleted.status).toBe(200);
  });

  it("only the tag as written matches a write (strong comparison, RFC 9110 §8.8.3.2): another spelling of its parts does not", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Plan" });
    await send(user, "PUT", `${PAGES}/${page.id}`, {}, { title: "Plan B" });
    const tag = (await getPage(user, page.id)).headers.get("ETag") ?? "";
    const { kind, json } = tagContents(tag);
    const parts = JSON.parse(json) as unknown[];
    const spelled = (text: string) => craftedTag(kind, text);
    const [id, version, ...rest] = parts;
    const others = [
      spelled(JSON.stringify(parts, null, 1)),
      spelled(JSON.stringify([id, version, ...rest]).replace(`,${version},`, `,${version}.0,`)),
      spelled(JSON.stringify([id, String(version), ...rest])),
    ];
    expect(new Set([tag, ...others]).size).toBe(4);
    const stored = await storedRow(page.id);
    for (const other of others) {
      const put = await send(user, "PUT", `${PAGES}/${page.id}`, { "If-Match": other }, { title: "clobber" });
      expectPreconditionFailed(put, tag, other);
    }
    expect(await storedRow(page.id)).toEqual(stored);
    for (const other of others) {
      const unlessMatching = await send(
        user,
        "PUT",
        `${PAGES}/${page.id}`,
        { "If-None-Match": other },
        { title: other },
      );
      expect(unlessMatching.status, other).toBe(200);
    }
  });

  it("two writers racing with one tag: exactly one wins, the other is a 412, the stored title is the winner's", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "start" });
    await expectRacingWriters({
      read: () => getPage(user, page.id),
      write: (tag, value) => send(user, "PUT", `${PAGES}/${page.id}`, { "If-Match": tag }, { title: value }),
      stored: async () => (await getPage(user, page.id)).body.properties.title,
    });
  });

  it("a row's tag changes when its database's schema does (properties_by_name names the properties)", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [{ name: "Notes", type: "text" }] });
    const row = await createRow(user, database.id, { Notes: "hello" });
    const before = await getPage(user, row.id);
    const tag = before.headers.get("ETag") ?? "";
    const renamed = await api(`${DATABASES}/${database.id}/properties/${database.prop("Notes").id}`, {
      method: "PATCH",
      auth: user,
      body: { name: "Remarks" },
    });
    expect(renamed.status).toBe(200);
    const after = await send(user, "GET", `${PAGES}/${row.id}`, { "If-None-Match": tag });
    expect(after.status).toBe(200);
    expect(after.headers.get("ETag")).not.toBe(tag);
    const stale = await send(user, "PUT", `${PAGES}/${row.id}`, { "If-Match": tag }, { properties: { Remarks: "x" } });
    expect(stale.status).toBe(412);
    const fresh = await send(
      user,
      "PUT",
      `${PAGES}/${row.id}`,
      { "If-Match": after.headers.get("ETag") ?? "" },
      { properties: { Remarks: "x" } },
    );
    expect(fresh.status).toBe(200);
  });

  it("If-Match: * writes while the page exists; another user's page is a 404 whatever the preconditions", async () => {
    const owner = await createUser();
    const other = await createUser();
    const page = await createPage(owner, { title: "Mine" });
    expect((await send(owner, "PUT", `${PAGES}/${page.id}`, { "If-Match": "*" }, { title: "Still mine" })).status).toBe(
      200,
    );
    expect((await send(other, "PUT", `${PAGES}/${page.id}`, { "If-Match": "*" }, { title: "x" })).status).toBe(404);
    expect((await send(other, "DELETE", `${PAGES}/${page.id}`, { "If-Match": '"stale"' })).status).toBe(404);
    expect((await send(other, "GET", `${PAGES}/${page.id}`, { "If-None-Match": "*" })).status).toBe(404);
    expect((await api(`${PAGES}/${page.id}`, { headers: { "If-None-Match": "*" } })).status).toBe(401);
  });
});
