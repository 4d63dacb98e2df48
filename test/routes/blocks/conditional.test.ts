import { describe, expect, it } from "vitest";
import { api, createUser } from "../../helpers/api";
import { BLOCKS, type Block, createBlock, getBlock, storedRow } from "../../helpers/blocks";
import {
  craftedTag,
  expectConditionalRead,
  expectPreconditionFailed,
  expectRacingWriters,
  expectWrittenTag,
  STRONG_TAG,
  sendWith,
} from "../../helpers/conditional";

const send = sendWith<Block>;

describe("block validators (RFC 9110 §8.8.3, §13.1)", () => {
  it("a read answers a strong ETag; If-None-Match with it (or *, or in a list, or weak) is 304 with no body", async () => {
    const user = await createUser();
    const block = await createBlock(user, { properties: { title: "v1" } });
    await expectConditionalRead(user, `${BLOCKS}/${block.id}`);
  });

  it("a creation and a duplicate answer the new block's ETag, the one a read of it answers", async () => {
    const user = await createUser();
    const created = await send(user, "POST", BLOCKS, {}, { type: "paragraph", content: "first" });
    await expectWrittenTag(created, null, () => getBlock(user, created.body.id));
    const unversioned = await send(user, "POST", "/api/blocks", {}, { type: "paragraph" });
    await expectWrittenTag(unversioned, null, () => getBlock(user, unversioned.body.id));
    const copy = await send(user, "POST", `${BLOCKS}/${created.body.id}/duplicate`, {});
    await expectWrittenTag(copy, null, () => getBlock(user, copy.body.id));
  });

  it("a duplicate's If-Match is held to the source block's tag (the request's target): current copies, stale is a 412", async () => {
    const user = await createUser();
    const source = await createBlock(user, { type: "page", properties: { title: "v1" } });
    const tag = (await getBlock(user, source.id)).headers.get("ETag") ?? "";
    const duplicate = (headers: Record<string, string>) =>
      send(user, "POST", `${BLOCKS}/${source.id}/duplicate`, headers);
    const copy = await duplicate({ "If-Match": tag });
    expect(copy.status).toBe(201);
    await expectWrittenTag(copy, tag, () => getBlock(user, copy.body.id));
    expect((await getBlock(user, source.id)).headers.get("ETag")).toBe(tag);
    const edited = await send(user, "PATCH", `${BLOCKS}/${source.id}`, {}, { properties: { title: "v2" } });
    const children = async () => (await api<Block[]>(`${BLOCKS}?type=page`, { auth: user })).body.length;
    const before = await children();
    expectPreconditionFailed(await duplicate({ "If-Match": tag }), edited.headers.get("ETag"));
    expectPreconditionFailed(await duplicate({ "If-None-Match": "*" }), edited.headers.get("ETag"));
    expect(await children()).toBe(before);
    expect((await duplicate({ "If-Match": edited.headers.get("ETag") ?? "" })).status).toBe(201);
  });

  it("every write answers the new ETag, and a read of it matches", async () => {
    const user = await createUser();
    const block = await createBlock(user);
    const first = (await getBlock(user, block.id)).headers.get("ETag") ?? "";
    const written = await send(user, "PATCH", `${BLOCKS}/${block.id}`, { "If-Match": first }, { content: "v2" });
    const tag = await expectWrittenTag(written, first, () => getBlock(user, block.id));
    // Archived and trashed blocks read as absent: each command goes on from the tag the last one answered.
    let before = tag ?? "";
    for (const [path, body] of [
      ["archive", undefined],
      ["restore", undefined],
      ["trash", undefined],
      ["restore", undefined],
      ["move", { position: 7 }],
      ["convert", { type: "heading_1" }],
    ] as const) {
      const res = await send(user, "POST", `${BLOCKS}/${block.id}/${path}`, { "If-Match": before }, body);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("ETag"), path).toMatch(STRONG_TAG);
      expect(res.headers.get("ETag"), path).not.toBe(before);
      before = res.headers.get("ETag") ?? "";
      const read = await getBlock(user, block.id);
      if (read.status === 200) expect(read.headers.get("ETag"), path).toBe(before);
    }
  });

  it("a stale If-Match is a 412 precondition_failed with the current tag, on every write, and writes nothing", async () => {
    const user = await createUser();
    const block = await createBlock(user, { properties: { title: "kept" } });
    const stale = (await getBlock(user, block.id)).headers.get("ETag") ?? "";
    const changed = await send(user, "PATCH", `${BLOCKS}/${block.id}`, {}, { properties: { title: "current" } });
    const current = changed.headers.get("ETag");
    const stored = await storedRow(block.id);
    for (const [method, path, body] of [
      ["PATCH", "", { properties: { title: "clobber" } }],
      ["DELETE", "", undefined],
      ["POST", "/archive", undefined],
      ["POST", "/trash", undefined],
      ["POST", "/restore", undefined],
      ["POST", "/move", { position: 99 }],
      ["POST", "/convert", { type: "heading_1" }],
    ] as const) {
      const res = await send(user, method, `${BLOCKS}/${block.id}${path}`, { "If-Match": stale }, body);
      expectPreconditionFailed(res, current, `${method} ${path}`);
    }
    expect(await storedRow(block.id)).toEqual(stored);
  });

  it("If-Match: * writes while the block exists; If-None-Match: * refuses a write to it", async () => {
    const user = await createUser();
    const block = await createBlock(user);
    const ok = await send(user, "PATCH", `${BLOCKS}/${block.id}`, { "If-Match": "*" }, { content: "any" });
    expect(ok.status).toBe(200);
    const refused = await send(user, "PATCH", `${BLOCKS}/${block.id}`, { "If-None-Match": "*" }, { content: "no" });
    expect(refused.status).toBe(412);
    expect((await storedRow(block.id))?.content).toBe(JSON.stringify("any"));
  });

  it("two writers racing with one tag: exactly one wins, the other is a 412, the stored value is the winner's", async () => {
    const user = await createUser();
    const block = await createBlock(user, { properties: { title: "start" } });
    await expectRacingWriters({
      read: () => getBlock(user, block.id),
      write: (tag, value) =>
        send(user, "PATCH", `${BLOCKS}/${block.id}`, { "If-Match": tag }, { properties: { title: value } }),
      stored: async () => (await getBlock(user, block.id)).body.properties.title,
    });
  });

  it("another user's block is a 404 whatever the preconditions; no credentials is a 401", async () => {
    const owner = await createUser();
    const other = await createUser();
    const block = await createBlock(owner);
    const tag = (await getBlock(owner, block.id)).headers.get("ETag") ?? "";
    const preconditions: Record<string, string>[] = [
      { "If-Match": tag },
      { "If-Match": '"stale"' },
      { "If-None-Match": tag },
    ];
    for (const headers of preconditions) {
      expect((await send(other, "GET", `${BLOCKS}/${block.id}`, headers)).status).toBe(404);
      expect((await send(other, "PATCH", `${BLOCKS}/${block.id}`, headers, { content: "x" })).status).toBe(404);
      expect((await send(other, "DELETE", `${BLOCKS}/${block.id}`, headers)).status).toBe(404);
      const anonymous = await api(`${BLOCKS}/${block.id}`, { headers });
      expect(anonymous.status).toBe(401);
    }
  });

  it("a malformed If-Match is a 400 naming the header", async () => {
    const user = await createUser();
    const block = await createBlock(user);
    const res = await send(user, "PATCH", `${BLOCKS}/${block.id}`, { "If-Match": "unquoted" }, { content: "x" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_failed", details: { header: "If-Match" } });
  });

  it("a tag of the right shape naming no version this service writes (nested arrays, an object) is stale: a 412, never a 500", async () => {
    const user = await createUser();
    const block = await createBlock(user, { properties: { title: "kept" } });
    const crafted = (parts: string) => craftedTag("b", `["${block.id}",${parts}]`);
    const deep = `${"[".repeat(1100)}${"]".repeat(1100)}`;
    // As many parts as a block's tag has, and one more or less: whatever the count, never a 500.
    const tags = [deep, `${deep},"x"`, `${deep},"x","y"`, `{"a":1},"x"`].map(crafted);
    for (const tag of tags) {
      const res = await send(
        user,
        "PATCH",
        `${BLOCKS}/${block.id}`,
        { "If-Match": tag },
        { properties: { title: "lost" } },
      );
      const read = await getBlock(user, block.id);
      expectPreconditionFailed(res, read.headers.get("ETag"));
      expect(read.body.properties).toMatchObject({ title: "kept" });
    }
  });

  it("a block deleted and created again with the same id has another tag: the old one neither matches nor is 304", async () => {
    const user = await createUser();
    const id = `reused-${crypto.randomUUID()}`;
    const first = await send(user, "POST", BLOCKS, {}, { id, type: "paragraph", content: "first" });
    expect(first.status).toBe(201);
    const oldTag = first.headers.get("ETag") ?? "";
    expect((await api(`${BLOCKS}/${id}`, { method: "DELETE", auth: user })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await send(user, "POST", BLOCKS, {}, { id, type: "paragraph", content: "second" });
    expect(second.status).toBe(201);
    expect(second.headers.get("ETag")).not.toBe(oldTag);
    expect((await api(`${BLOCKS}/${id}`, { auth: user, headers: { "If-None-Match": oldTag } })).status).toBe(200);
    expectPreconditionFailed(
      await send(user, "PATCH", `${BLOCKS}/${id}`, { "If-Match": oldTag }, { content: "clobbered" }),
      second.headers.get("ETag"),
    );
    expect((await getBlock(user, id)).body.content).toBe("second");
  });

  it("reads and conditional writes keep their D1 round trips", async () => {
    const user = await createUser();
    const block = await createBlock(user);
    const read = await getBlock(user, block.id);
    expect(read.queryRoundTrips).toBe(1);
    const notModified = await send(user, "GET", `${BLOCKS}/${block.id}`, {
      "If-None-Match": read.headers.get("ETag") ?? "",
    });
    expect(notModified.queryRoundTrips).toBe(1);
    const written = await send(user, "POST", `${BLOCKS}/${block.id}/archive`, {
      "If-Match": read.headers.get("ETag") ?? "",
    });
    expect(written.queryRoundTrips).toBe(1);
  });
});
