import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import {
  BLOCKS,
  createBlock,
  ISO_DATE_TIME,
  insertBlock,
  insertBlocks,
  issuePaths,
  storedRow,
  UUID,
} from "../../helpers/blocks";
import { createDatabase, createRow } from "../../helpers/databases";
import {
  getInstance,
  insertLink,
  link,
  listInstances,
  postLink,
  readSyncTarget,
  SYNCED,
  type SyncedBlock,
  setupSyncTarget,
  storedLink,
  storedLinksOf,
  unlink,
} from "../../helpers/synced-blocks";

describeAuthMatrix({
  name: "POST /api/v1/synced-blocks",
  method: "POST",
  path: () => SYNCED,
  body: { source_block_id: "a", instance_block_id: "b" },
});

describeAuthMatrix({
  name: "GET /api/v1/synced-blocks/source/{sourceBlockId}",
  method: "GET",
  path: (id) => `${SYNCED}/source/${id}`,
  setup: (owner) => setupSyncTarget(owner, "source"),
  readBack: readSyncTarget,
});

describeAuthMatrix({
  name: "GET /api/v1/synced-blocks/instance/{instanceBlockId}",
  method: "GET",
  path: (id) => `${SYNCED}/instance/${id}`,
  setup: (owner) => setupSyncTarget(owner, "instance"),
  readBack: readSyncTarget,
});

describeAuthMatrix({
  name: "POST /api/v1/synced-blocks/instance/{instanceBlockId}/unlink",
  method: "POST",
  path: (id) => `${SYNCED}/instance/${id}/unlink`,
  setup: (owner) => setupSyncTarget(owner, "instance"),
  readBack: readSyncTarget,
});

/** Two blocks of `user` under one page: a source and a would-be instance. */
async function pair(user: TestUser) {
  const page = await createBlock(user, { type: "page", properties: { title: "Pair" } });
  const source = await createBlock(user, { type: "callout", parent_id: page.id, properties: { title: "Source" } });
  const instance = await createBlock(user, { parent_id: page.id, properties: { title: "Instance" } });
  return { page, source, instance };
}

describe("POST /api/v1/synced-blocks", () => {
  it("links an instance to a source: 201, stored, readable, listed; one round trip", async () => {
    const user = await createUser();
    const { source, instance } = await pair(user);

    const res = await postLink(user, { source_block_id: source.id, instance_block_id: instance.id });

    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      source_block_id: source.id,
      instance_block_id: instance.id,
      status: "synced",
      last_synced_at: null,
      created_by: user.id,
      created_at: expect.stringMatching(ISO_DATE_TIME),
    });
    expect(res.queryRoundTrips).toBe(1);
    expect(await storedLink(instance.id)).toEqual(res.body);
    expect((await getInstance(user, instance.id)).body).toEqual(res.body);
    expect((await listInstances(user, source.id)).body).toEqual([res.body]);
    // Linking copies nothing: the instance is unchanged until a propagation.
    expect((await api(`${BLOCKS}/${instance.id}`, { auth: user })).body).toEqual(instance);
  });

  it.each([
    ["no body fields", {}, ["source_block_id", "instance_block_id"]],
    ["no instance", { source_block_id: "a" }, ["instance_block_id"]],
    ["empty ids", { source_block_id: "", instance_block_id: "" }, ["source_block_id", "instance_block_id"]],
    [
      "ids of the wrong type",
      { source_block_id: 1, instance_block_id: null },
      ["source_block_id", "instance_block_id"],
    ],
    ["an id over 128 characters", { source_block_id: "a".repeat(129), instance_block_id: "b" }, ["source_block_id"]],
    ["an unknown field", { source_block_id: "a", instance_block_id: "b", status: "synced" }, [""]],
    ["camelCase spellings", { sourceBlockId: "a", instanceBlockId: "b" }, ["source_block_id", "instance_block_id"]],
  ])("400 for %s, with each problem in details, storing nothing", async (_case, body, paths) => {
    const user = await createUser();
    const res = await postLink(user, body);
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ code: "validation_failed" });
    expect(issuePaths(res.body)).toEqual(expect.arrayContaining(paths));
  });

  it.each([
    ["not JSON", "{source_block_id:"],
    ["a JSON array", "[]"],
    ["a JSON string", '"x"'],
  ])("400 for a body that is %s", async (_case, body) => {
    const user = await createUser();
    const res = await api(SYNCED, { method: "POST", auth: user, body });
    expectErrorBody(res, 400);
  });

  it("400 for a block following itself", async () => {
    const user = await createUser();
    const { source } = await pair(user);
    const res = await postLink(user, { source_block_id: source.id, instance_block_id: source.id });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ code: "validation_failed", details: { field: "instance_block_id" } });
    expect(await storedLink(source.id)).toBeNull();
  });

  it("404 naming the field for another user's source or instance, and for unknown ids; nothing stored", async () => {
    const owner = await createUser();
    const intruder = await createUser();
    const mine = await pair(owner);
    const theirs = await pair(intruder);

    const cases = [
      [{ source_block_id: theirs.source.id, instance_block_id: mine.instance.id }, "source_block_id"],
      [{ source_block_id: mine.source.id, instance_block_id: theirs.instance.id }, "instance_block_id"],
      [{ source_block_id: "no-such-block", instance_block_id: mine.instance.id }, "source_block_id"],
      [{ source_block_id: mine.source.id, instance_block_id: "no-such-block" }, "instance_block_id"],
    ] as const;
    for (const [body, field] of cases) {
      const res = await postLink(owner, body);
      expectErrorBody(res, 404);
      expect(res.body).toMatchObject({ code: "not_found", details: { field } });
    }
    expect(await storedLink(mine.instance.id)).toBeNull();
    expect(await storedLink(theirs.instance.id)).toBeNull();
  });

  it("404 for an internal block (provider_audit_log), which no one sees", async () => {
    const user = await createUser();
    const { instance } = await pair(user);
    const internal = await insertBlock({ type: "provider_audit_log", created_by: user.id });
    const res = await postLink(user, { source_block_id: internal, instance_block_id: instance.id });
    expectErrorBody(res, 404);
  });

  it("400 when the source or the instance is a database or a database row", async () => {
    const user = await createUser();
    const { source, instance } = await pair(user);
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "A row" });
    for (const [body, field, type] of [
      [{ source_block_id: database.id, instance_block_id: instance.id }, "source_block_id", "database"],
      [{ source_block_id: source.id, instance_block_id: row.id }, "instance_block_id", "database_row"],
    ] as const) {
      const res = await postLink(user, body);
      expectErrorBody(res, 400);
      expect(res.body).toMatchObject({ details: { field, type } });
    }
    expect(await storedLink(instance.id)).toBeNull();
    expect(await storedLink(row.id)).toBeNull();
  });

  it("shared blocks (no owner) can be linked by anyone who sees them, and the link is theirs", async () => {
    const owner = await createUser();
    const other = await createUser();
    const shared = await insertBlock({ type: "callout", created_by: null, properties: { title: "Shared" } });
    const mine = await createBlock(other, { properties: { title: "Mine" } });
    const created = await link(other, shared, mine.id);
    expect(created.created_by).toBe(other.id);
    // The source's owner-less listing shows each user only the instances they can see.
    expect((await listInstances(other, shared)).body).toEqual([created]);
    expect((await listInstances(owner, shared)).body).toEqual([]);
    expectErrorBody(await getInstance(owner, mine.id), 404);
  });

  describe("a link shows and shares nothing the caller cannot see", () => {
    it("400 when a shared instance would follow a private source; every other pairing is accepted", async () => {
      const user = await createUser();
      const mine = await pair(user);
      const [shared, sharedSource] = await insertBlocks([
        { created_by: null, properties: { title: "Shared instance" } },
        { type: "callout", created_by: null, properties: { title: "Shared source" } },
      ]);
      if (!shared || !sharedSource) throw new Error("blocks");

      const res = await postLink(user, { source_block_id: mine.source.id, instance_block_id: shared });
      expectErrorBody(res, 400);
      expect(res.body).toMatchObject({
        code: "validation_failed",
        details: { field: "source_block_id", id: mine.source.id, reason: "source_less_visible" },
      });
      expect(await storedLink(shared)).toBeNull();

      // Shared → shared, shared → private, private → private.
      await link(user, sharedSource, shared);
      await link(user, sharedSource, mine.instance.id);
      const other = await createBlock(user, { parent_id: mine.page.id });
      await link(user, mine.source.id, other.id);
    });

    it("a link whose source the caller cannot see is no link to them: 404 to read or unlink, and linking replaces it", async () => {
      const alice = await createUser();
      const bob = await createUser();
      const alicesSource = await createBlock(alice, { properties: { title: "Alice's private source" } });
      const [shared, sharedSource, free] = await insertBlocks([
        { created_by: null, properties: { title: "Shared instance" } },
        { type: "callout", created_by: null, properties: { title: "Shared source" } },
        { created_by: null, properties: { title: "Shared block that follows nothing" } },
      ]);
      if (!shared || !sharedSource || !free) throw new Error("blocks");
      // Made before such links were refused: Alice's private source, a shared instance.
      await insertLink(alicesSource.id, shared, alice.id);

      // Bob gets the answers he would get for a block that follows nothing.
      for (const id of [shared, free]) {
        expectErrorBody(await getInstance(bob, id), 404);
        expectErrorBody(await unlink(bob, id), 404);
      }
      const taken = await postLink(bob, { source_block_id: sharedSource, instance_block_id: shared });
      const fresh = await postLink(bob, { source_block_id: sharedSource, instance_block_id: free });
      expect([taken.status, fresh.status]).toEqual([201, 201]);
      expect(taken.body).toMatchObject({ source_block_id: sharedSource, status: "synced", created_by: bob.id });
      expect(await storedLink(shared)).toEqual(taken.body);
      // Alice's source no longer reaches the shared block.
      expect(await storedLinksOf(alicesSource.id)).toEqual([]);
      expect((await listInstances(alice, alicesSource.id)).body).toEqual([]);
    });

    it("the containment and cycle checks walk only the blocks and links the caller sees", async () => {
      const alice = await createUser();
      const bob = await createUser();
      // Shared blocks joined through Alice's private ones: S1 under P1 under I1; I2 under P2 under S2;
      // X3 under S3, and X3 follows I3 (Alice's link).
      const [i1, s2, s3, i3] = await insertBlocks([
        { created_by: null, properties: { title: "I1" } },
        { type: "callout", created_by: null, properties: { title: "S2" } },
        { type: "callout", created_by: null, properties: { title: "S3" } },
        { created_by: null, properties: { title: "I3" } },
      ]);
      const [p1, p2, x3] = await insertBlocks([
        { parent_id: i1, created_by: alice.id, properties: { title: "P1" } },
        { parent_id: s2, created_by: alice.id, properties: { title: "P2" } },
        { parent_id: s3, created_by: alice.id, properties: { title: "X3" } },
      ]);
      const [s1, i2] = await insertBlocks([
        { type: "callout", parent_id: p1, created_by: null, properties: { title: "S1" } },
        { parent_id: p2, created_by: null, properties: { title: "I2" } },
      ]);
      if (!i1 || !s2 || !s3 || !i3 || !x3 || !s1 || !i2) throw new Error("blocks");
      await link(alice, i3, x3);

      const cases = [
        [s1, i1, "source_inside_instance"],
        [s2, i2, "instance_inside_source"],
        [s3, i3, "cycle"],
      ] as const;
      // Alice sees what joins them: refused, with the reason.
      for (const [source, instance, reason] of cases) {
        const res = await postLink(alice, { source_block_id: source, instance_block_id: instance });
        expectErrorBody(res, 409);
        expect(res.body).toMatchObject({ details: { reason } });
      }
      // Bob does not: the answer tells him nothing about Alice's blocks or links.
      for (const [source, instance] of cases) {
        const res = await postLink(bob, { source_block_id: source, instance_block_id: instance });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
      }
    });
  });

  it("409 when the instance already follows a source, the same one or another; the link stays", async () => {
    const user = await createUser();
    const { page, source, instance } = await pair(user);
    const other = await createBlock(user, { parent_id: page.id, properties: { title: "Other source" } });
    const first = await link(user, source.id, instance.id);

    for (const again of [source.id, other.id]) {
      const res = await postLink(user, { source_block_id: again, instance_block_id: instance.id });
      expectErrorBody(res, 409);
      expect(res.body).toMatchObject({ code: "conflict", details: { field: "instance_block_id" } });
    }
    expect(await storedLink(instance.id)).toEqual(first);
  });

  it("a source may have many instances, and an instance may itself be a source (a chain)", async () => {
    const user = await createUser();
    const { page, source, instance } = await pair(user);
    const second = await createBlock(user, { parent_id: page.id });
    const third = await createBlock(user, { parent_id: page.id });
    await link(user, source.id, instance.id);
    await link(user, source.id, second.id);
    await link(user, instance.id, third.id);
    expect((await storedLinksOf(source.id)).map((l) => l.instance_block_id).sort()).toEqual(
      [instance.id, second.id].sort(),
    );
    expect((await storedLink(third.id))?.source_block_id).toBe(instance.id);
  });

  it("an unlinked instance may follow again, the same or another source: a new link replaces the old", async () => {
    const user = await createUser();
    const { page, source, instance } = await pair(user);
    const other = await createBlock(user, { parent_id: page.id, properties: { title: "Other source" } });
    const first = await link(user, source.id, instance.id);
    await unlink(user, instance.id);

    const again = await link(user, other.id, instance.id);
    expect(again).toMatchObject({ source_block_id: other.id, status: "synced", last_synced_at: null });
    expect(again.id).not.toBe(first.id);
    expect(await storedLink(instance.id)).toEqual(again);
    expect(await storedLinksOf(source.id)).toEqual([]);

    await unlink(user, instance.id);
    const back = await link(user, source.id, instance.id);
    expect(back).toMatchObject({ source_block_id: source.id, status: "synced" });
  });

  describe("cycles are refused with 409 and store nothing", () => {
    it("A→B then B→A (B follows A, then A would follow B)", async () => {
      const user = await createUser();
      const { source: a, instance: b } = await pair(user);
      await link(user, a.id, b.id);
      const res = await postLink(user, { source_block_id: b.id, instance_block_id: a.id });
      expectErrorBody(res, 409);
      expect(res.body).toMatchObject({ details: { reason: "cycle" } });
      expect(await storedLink(a.id)).toBeNull();
    });

    it("a longer chain: A→B, B→C, C→D, then D→A", async () => {
      const user = await createUser();
      const page = await createBlock(user, { type: "page" });
      const [a, b, c, d] = await Promise.all(
        ["A", "B", "C", "D"].map((title) => createBlock(user, { parent_id: page.id, properties: { title } })),
      );
      if (!a || !b || !c || !d) throw new Error("blocks");
      await link(user, a.id, b.id);
      await link(user, b.id, c.id);
      await link(user, c.id, d.id);
      const res = await postLink(user, { source_block_id: d.id, instance_block_id: a.id });
      expectErrorBody(res, 409);
      expect(res.body).toMatchObject({ details: { reason: "cycle" } });
      expect(await storedLink(a.id)).toBeNull();
    });

    it("through containment: B follows A and X lies in A, so X may not follow B", async () => {
      const user = await createUser();
      const { source: a, instance: b } = await pair(user);
      const x = await createBlock(user, { parent_id: a.id, properties: { title: "X" } });
      await link(user, a.id, b.id);
      const res = await postLink(user, { source_block_id: b.id, instance_block_id: x.id });
      expectErrorBody(res, 409);
      expect(res.body).toMatchObject({ details: { reason: "cycle" } });
    });

    it("the instance inside the source, or the source inside the instance", async () => {
      const user = await createUser();
      const { source, instance } = await pair(user);
      const inSource = await createBlock(user, { parent_id: source.id });
      const deep = await createBlock(user, { parent_id: inSource.id });
      const inInstance = await createBlock(user, { parent_id: instance.id });

      const inward = await postLink(user, { source_block_id: source.id, instance_block_id: deep.id });
      expectErrorBody(inward, 409);
      expect(inward.body).toMatchObject({ details: { reason: "instance_inside_source" } });
      const outward = await postLink(user, { source_block_id: inInstance.id, instance_block_id: instance.id });
      expectErrorBody(outward, 409);
      expect(outward.body).toMatchObject({ details: { reason: "source_inside_instance" } });
      expect(await storedLink(deep.id)).toBeNull();
      expect(await storedLink(instance.id)).toBeNull();
    });

    it("an unlinked link is not followed: A→B unlinked, then B→A is accepted, and A→B again refused", async () => {
      const user = await createUser();
      const { source: a, instance: b } = await pair(user);
      await link(user, a.id, b.id);
      await unlink(user, b.id);
      await link(user, b.id, a.id);
      const res = await postLink(user, { source_block_id: a.id, instance_block_id: b.id });
      expectErrorBody(res, 409);
      expect(res.body).toMatchObject({ details: { reason: "cycle" } });
      expect((await storedLink(b.id))?.status).toBe("unlinked");
    });

    it("concurrent A→B and B→A: exactly one is stored", async () => {
      const user = await createUser();
      for (let round = 0; round < 5; round++) {
        const { source: a, instance: b } = await pair(user);
        const results = await Promise.all([
          postLink(user, { source_block_id: a.id, instance_block_id: b.id }),
          postLink(user, { source_block_id: b.id, instance_block_id: a.id }),
        ]);
        expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
        const stored = [await storedLink(a.id), await storedLink(b.id)].filter(Boolean);
        expect(stored).toHaveLength(1);
      }
    });

    it("concurrent links of one instance to different sources: exactly one is stored", async () => {
      const user = await createUser();
      const { page, instance } = await pair(user);
      const sources = await Promise.all(
        Array.from({ length: 6 }, () => createBlock(user, { parent_id: page.id, properties: { title: "S" } })),
      );
      const results = await Promise.all(
        sources.map((s) => postLink(user, { source_block_id: s.id, instance_block_id: instance.id })),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409)).toHaveLength(5);
      const winner = results.find((r) => r.status === 201)?.body as SyncedBlock;
      expect(await storedLink(instance.id)).toEqual(winner);
    });
  });
});

describe("GET /api/v1/synced-blocks/instance/{instanceBlockId}", () => {
  it("404 for a block that follows nothing, and for an unknown id", async () => {
    const user = await createUser();
    const { instance } = await pair(user);
    for (const id of [instance.id, "no-such-block"]) {
      const res = await getInstance(user, id);
      expectErrorBody(res, 404);
      expect(res.body).toMatchObject({ code: "not_found" });
    }
  });

  it("shows an unlinked link too, in one round trip", async () => {
    const user = await createUser();
    const { source, instance } = await pair(user);
    await link(user, source.id, instance.id);
    await unlink(user, instance.id);
    const res = await getInstance(user, instance.id);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("unlinked");
    expect(res.queryRoundTrips).toBe(1);
  });

  it("404 when the caller sees the instance but not its source (a link made before such links were refused)", async () => {
    const owner = await createUser();
    const other = await createUser();
    const source = await createBlock(owner, { properties: { title: "Private source" } });
    const shared = await insertBlock({ created_by: null, properties: { title: "Shared instance" } });
    await insertLink(source.id, shared, owner.id);
    expect((await getInstance(owner, shared)).status).toBe(200);
    expectErrorBody(await getInstance(other, shared), 404);
    expectErrorBody(await unlink(other, shared), 404);
    expect((await storedLink(shared))?.status).toBe("synced");
  });
});

describe("GET /api/v1/synced-blocks/source/{sourceBlockId}", () => {
  async function sourceWithInstances(user: TestUser, count: number) {
    const { page, source } = await pair(user);
    const links: SyncedBlock[] = [];
    for (let i = 0; i < count; i++) {
      const instance = await createBlock(user, { parent_id: page.id, properties: { title: `I${i}` } });
      links.push(await link(user, source.id, instance.id));
    }
    return { source, links };
  }

  it("pages through the instances oldest first, with the pagination headers, in one round trip", async () => {
    const user = await createUser();
    const { source, links } = await sourceWithInstances(user, 5);

    const first = await listInstances(user, source.id, "?limit=2");
    expect(first.status).toBe(200);
    expect(first.body).toEqual(links.slice(0, 2));
    expect(first.headers.get("X-Total-Count")).toBe("5");
    expect(first.headers.get("X-Pagination-Limit")).toBe("2");
    expect(first.headers.get("X-Pagination-Offset")).toBe("0");
    expect(first.headers.get("X-Has-More")).toBe("true");
    expect(first.queryRoundTrips).toBe(1);

    const last = await listInstances(user, source.id, "?limit=2&offset=4");
    expect(last.body).toEqual(links.slice(4));
    expect(last.headers.get("X-Has-More")).toBe("false");

    const clamped = await listInstances(user, source.id, "?limit=500");
    expect(clamped.headers.get("X-Pagination-Limit")).toBe("100");
    expect(clamped.body).toEqual(links);
  });

  it("filters by status", async () => {
    const user = await createUser();
    const { source, links } = await sourceWithInstances(user, 3);
    await unlink(user, links[1]?.instance_block_id as string);
    const synced = await listInstances(user, source.id, "?status=synced");
    expect(synced.body.map((l) => l.instance_block_id)).toEqual([links[0], links[2]].map((l) => l?.instance_block_id));
    const unlinked = await listInstances(user, source.id, "?status=unlinked");
    expect(unlinked.body).toEqual([{ ...links[1], status: "unlinked" }]);
    expect(unlinked.headers.get("X-Total-Count")).toBe("1");
  });

  it("an empty page for a source without instances; 404 for an unknown or another user's source", async () => {
    const user = await createUser();
    const other = await createUser();
    const { source } = await pair(user);
    const empty = await listInstances(user, source.id);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual([]);
    expect(empty.headers.get("X-Total-Count")).toBe("0");
    expectErrorBody(await listInstances(other, source.id), 404);
    expectErrorBody(await listInstances(user, "no-such-block"), 404);
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=abc", "limit"],
    ["offset=-1", "offset"],
    ["status=broken", "status"],
    ["sortBy=created_at", ""],
  ])("400 for ?%s", async (query, path) => {
    const user = await createUser();
    const { source } = await pair(user);
    const res = await listInstances(user, source.id, `?${query}`);
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain(path);
  });
});

describe("POST /api/v1/synced-blocks/instance/{instanceBlockId}/unlink", () => {
  it("sets the status to unlinked; the instance keeps its content; a second unlink changes nothing", async () => {
    const user = await createUser();
    const { source, instance } = await pair(user);
    const created = await link(user, source.id, instance.id);
    const before = await storedRow(instance.id);

    const res = await unlink(user, instance.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created, status: "unlinked" });
    expect(res.queryRoundTrips).toBe(1);
    expect(await storedRow(instance.id)).toEqual(before);

    const again = await unlink(user, instance.id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
  });

  it("accepts {} as a body; refuses unknown fields with 400", async () => {
    const user = await createUser();
    const { source, instance } = await pair(user);
    await link(user, source.id, instance.id);
    const bad = await api(`${SYNCED}/instance/${instance.id}/unlink`, { method: "POST", auth: user, body: { x: 1 } });
    expectErrorBody(bad, 400);
    expect((await storedLink(instance.id))?.status).toBe("synced");
    const ok = await api(`${SYNCED}/instance/${instance.id}/unlink`, { method: "POST", auth: user, body: {} });
    expect(ok.status).toBe(200);
  });

  it("404 for a block that follows nothing", async () => {
    const user = await createUser();
    const { instance } = await pair(user);
    expectErrorBody(await unlink(user, instance.id), 404);
  });
});

describe("deleting a block removes its links (foreign keys cascade)", () => {
  it("deleting the source removes the links of all its instances; the instances stay", async () => {
    const user = await createUser();
    const { page, source, instance } = await pair(user);
    const second = await createBlock(user, { parent_id: page.id });
    await link(user, source.id, instance.id);
    await link(user, source.id, second.id);
    expect((await api(`${BLOCKS}/${source.id}`, { method: "DELETE", auth: user })).status).toBe(200);
    expect(await storedLinksOf(source.id)).toEqual([]);
    expect(await storedLink(instance.id)).toBeNull();
    expect(await storedRow(instance.id)).not.toBeNull();
    expectErrorBody(await getInstance(user, instance.id), 404);
  });

  it("deleting the instance (or a page holding it) removes its link", async () => {
    const user = await createUser();
    const { page, source, instance } = await pair(user);
    const nested = await createBlock(user, { type: "page" });
    const deep = await createBlock(user, { parent_id: nested.id });
    await link(user, source.id, instance.id);
    await link(user, source.id, deep.id);
    expect((await api(`${BLOCKS}/${instance.id}`, { method: "DELETE", auth: user })).status).toBe(200);
    expect(await storedLink(instance.id)).toBeNull();
    expect((await api(`/api/v1/pages/${nested.id}?permanent=true`, { method: "DELETE", auth: user })).status).toBe(200);
    expect(await storedLink(deep.id)).toBeNull();
    expect(await storedLinksOf(source.id)).toEqual([]);
    expect((await listInstances(user, source.id)).body).toEqual([]);
    expect(page.id).toBeTruthy();
  });
});
