import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Backlink } from "../../../src/schemas/mentions";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { BLOCKS, createBlock } from "../../helpers/blocks";

const mention = (id: string, text = "@Target") => ({ text, mention: { type: "page", id } });
const paragraph = (...children: unknown[]) => ({ type: "paragraph", children });
const page = (user: TestUser, title: string, content: unknown[] = [], extra: Record<string, unknown> = {}) =>
  createBlock(user, { type: "page", properties: { title }, content, ...extra });

const backlinks = (user: TestUser, pageId: string, query = "") =>
  api<Backlink[]>(`/api/v1/backlinks/${pageId}${query}`, { auth: user });
const count = async (user: TestUser, pageId: string) =>
  (await api<{ count: number }>(`/api/v1/backlinks/${pageId}/count`, { auth: user })).body.count;

describe("backlinks", () => {
  it("lists the blocks and pages that mention or link to a page, with their page, title and snippet", async () => {
    const user = await createUser();
    const target = await page(user, "Target");
    const notes = await page(user, "Meeting notes");
    const inNotes = await createBlock(user, {
      parent_id: notes.id,
      content: [paragraph({ text: "Discussed " }, mention(target.id), { text: " at length" })],
    });
    const linking = await page(user, "Index", [paragraph({ text: "go", link: `/pages/${target.id}` })]);
    // A page that mentions the target twice counts once.
    const twice = await page(user, "Twice", [paragraph(mention(target.id), mention(target.id, "again"))]);

    const res = await backlinks(user, target.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        source_block_id: inNotes.id,
        source_page_id: notes.id,
        source_page_title: "Meeting notes",
        snippet: "Discussed @Target at length",
        kind: "mention",
        created_at: expect.any(String),
      },
      expect.objectContaining({
        source_block_id: linking.id,
        source_page_id: linking.id,
        kind: "link",
        source_page_title: "Index",
      }),
      expect.objectContaining({ source_block_id: twice.id, source_page_title: "Twice" }),
    ]);
    expect(res.queryRoundTrips).toBe(1);
    expect(await count(user, target.id)).toBe(3);
  });

  it("follow content edits, trash, archive, restore and delete", async () => {
    const user = await createUser();
    const target = await page(user, "Target");
    const source = await page(user, "Source", [paragraph(mention(target.id))]);
    expect(await count(user, target.id)).toBe(1);

    await api(`${BLOCKS}/${source.id}/trash`, { method: "POST", auth: user });
    expect(await count(user, target.id)).toBe(0);
    expect((await backlinks(user, target.id)).body).toEqual([]);
    await api(`${BLOCKS}/${source.id}/restore`, { method: "POST", auth: user });
    expect(await count(user, target.id)).toBe(1);

    await api(`${BLOCKS}/${source.id}/archive`, { method: "POST", auth: user });
    expect(await count(user, target.id)).toBe(0);
    await api(`${BLOCKS}/${source.id}/restore`, { method: "POST", auth: user });

    // A block on a trashed page is hidden with its page.
    const container = await page(user, "Container");
    await createBlock(user, { parent_id: container.id, content: [paragraph(mention(target.id))] });
    expect(await count(user, target.id)).toBe(2);
    await api(`${BLOCKS}/${container.id}/trash`, { method: "POST", auth: user });
    expect(await count(user, target.id)).toBe(1);

    await api(`${BLOCKS}/${source.id}`, {
      method: "PATCH",
      auth: user,
      body: { content: [paragraph({ text: "gone" })] },
    });
    expect(await count(user, target.id)).toBe(0);
    await api(`${BLOCKS}/${source.id}`, {
      method: "PATCH",
      auth: user,
      body: { content: [paragraph(mention(target.id))] },
    });
    expect(await count(user, target.id)).toBe(1);

    expect((await api(`${BLOCKS}/${source.id}`, { method: "DELETE", auth: user })).status).toBe(200);
    expect(await count(user, target.id)).toBe(0);
    const left = await env.DB.prepare("SELECT count(*) AS n FROM mentions WHERE block_id = ?")
      .bind(source.id)
      .first("n");
    expect(left).toBe(0);
  });

  it("a block under a trashed or archived block of its page is hidden with it", async () => {
    const user = await createUser();
    const target = await page(user, "Target");
    const notes = await page(user, "Notes");
    const toggle = await createBlock(user, { type: "toggle", parent_id: notes.id });
    await createBlock(user, { parent_id: toggle.id, content: [paragraph(mention(target.id))] });
    expect(await count(user, target.id)).toBe(1);
    await api(`${BLOCKS}/${toggle.id}/trash`, { method: "POST", auth: user });
    expect(await count(user, target.id)).toBe(0);
    expect((await backlinks(user, target.id)).body).toEqual([]);
    await api(`${BLOCKS}/${toggle.id}/restore`, { method: "POST", auth: user });
    expect(await count(user, target.id)).toBe(1);
    await api(`${BLOCKS}/${toggle.id}/archive`, { method: "POST", auth: user });
    expect(await count(user, target.id)).toBe(0);
  });

  it("never lists or counts sources the caller cannot see", async () => {
    const alice = await createUser();
    const bob = await createUser();
    const shared = await page(alice, "Shared target");
    await env.DB.prepare("UPDATE blocks SET created_by = NULL WHERE id = ?").bind(shared.id).run();
    await page(alice, "Alice's private notes", [paragraph(mention(shared.id))]);
    const bobs = await page(bob, "Bob's notes", [paragraph(mention(shared.id))]);

    expect(await count(alice, shared.id)).toBe(1);
    const forBob = await backlinks(bob, shared.id);
    expect(forBob.body.map((b) => b.source_block_id)).toEqual([bobs.id]);
    expect(JSON.stringify(forBob.body)).not.toContain("Alice");
  });

  it("a page's own blocks referring to it are not backlinks", async () => {
    const user = await createUser();
    const target = await page(user, "Self");
    await createBlock(user, { parent_id: target.id, content: [paragraph(mention(target.id))] });
    await api(`${BLOCKS}/${target.id}`, {
      method: "PATCH",
      auth: user,
      body: { content: [paragraph(mention(target.id))] },
    });
    expect(await count(user, target.id)).toBe(0);
  });

  it("a database row's title is its title property", async () => {
    const user = await createUser();
    const target = await page(user, "Target");
    const database = await createBlock(user, { type: "database", properties: { title: "Tasks" } });
    const row = await createBlock(user, {
      type: "database_row",
      database_id: database.id,
      properties: { title: "Write the launch post" },
      content: [paragraph(mention(target.id))],
    });
    const res = await backlinks(user, target.id);
    expect(res.body).toEqual([
      expect.objectContaining({
        source_block_id: row.id,
        source_page_id: row.id,
        source_page_title: "Write the launch post",
      }),
    ]);
  });

  it("is paginated like every listing", async () => {
    const user = await createUser();
    const target = await page(user, "Target");
    for (const title of ["one", "two", "three"]) await page(user, title, [paragraph(mention(target.id))]);
    const first = await backlinks(user, target.id, "?limit=2");
    expect(first.body.map((b) => b.source_page_title)).toEqual(["one", "two"]);
    expect(first.headers.get("X-Has-More")).toBe("true");
    expect(first.headers.get("X-Total-Count")).toBe("3");
    const rest = await backlinks(user, target.id, "?limit=2&offset=2");
    expect(rest.body.map((b) => b.source_page_title)).toEqual(["three"]);
    expect((await backlinks(user, target.id, "?limit=0")).status).toBe(400);
  });

  it("a page the caller cannot see, or a block that is not a page, is a 404", async () => {
    const owner = await createUser();
    const intruder = await createUser();
    const target = await page(owner, "Private");
    expectErrorBody(await backlinks(intruder, target.id), 404);
    expectErrorBody(await api(`/api/v1/backlinks/${target.id}/count`, { auth: intruder }), 404);
    const paragraphBlock = await createBlock(owner, {});
    expectErrorBody(await backlinks(owner, paragraphBlock.id), 404);
  });
});

describeAuthMatrix({
  name: "GET /api/v1/backlinks/{targetPageId}",
  method: "GET",
  path: (id) => `/api/v1/backlinks/${id}`,
  setup: (owner) => page(owner, "Target"),
});
describeAuthMatrix({
  name: "GET /api/v1/backlinks/{targetPageId}/count",
  method: "GET",
  path: (id) => `/api/v1/backlinks/${id}/count`,
  setup: (owner) => page(owner, "Target"),
});
