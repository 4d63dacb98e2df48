import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MentionRecord } from "../../../src/schemas/mentions";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { BLOCKS, createBlock } from "../../helpers/blocks";
import { postPage } from "../../helpers/pages";

const MENTIONS = "/api/v1/mentions";

const mention = (type: string, id: string, text = "@ref") => ({ text, mention: { type, id } });
const paragraph = (...children: unknown[]) => ({ type: "paragraph", children });

async function page(user: TestUser, content: unknown[] = [], extra: Record<string, unknown> = {}) {
  return createBlock(user, { type: "page", properties: { title: "A page" }, content, ...extra });
}

const stored = (blockId: string) =>
  env.DB.prepare(
    "SELECT target_type, target_id, kind, origin FROM mentions WHERE block_id = ? ORDER BY target_id, kind",
  )
    .bind(blockId)
    .all()
    .then((result) => result.results);

describe("mentions written in content are kept in step with it", () => {
  it("a page created with mention spans and links holds them; an edit replaces them", async () => {
    const user = await createUser();
    const target = await page(user);
    const source = await page(user, [
      paragraph(
        { text: "See " },
        mention("page", target.id, "@Target"),
        { text: " on " },
        mention("date", "2026-12-01"),
      ),
      paragraph({ text: "link", link: `https://app.example/pages/${target.id}?view=1` }, mention("user", user.id)),
    ]);
    expect(await stored(source.id)).toEqual(
      [
        { target_type: "date", target_id: "2026-12-01", kind: "mention", origin: "content" },
        { target_type: "page", target_id: target.id, kind: "link", origin: "content" },
        { target_type: "page", target_id: target.id, kind: "mention", origin: "content" },
        { target_type: "user", target_id: user.id, kind: "mention", origin: "content" },
      ].sort((a, b) =>
        a.target_id === b.target_id ? a.kind.localeCompare(b.kind) : a.target_id < b.target_id ? -1 : 1,
      ),
    );
    const listed = await api<MentionRecord[]>(`${MENTIONS}/block/${source.id}`, { auth: user });
    expect(listed.status).toBe(200);
    const pageMention = listed.body.find((m) => m.kind === "mention" && m.target_type === "page");
    expect(pageMention).toMatchObject({ block_id: source.id, page_id: source.id, snippet: "See @Target on" });

    const edited = await api(`${BLOCKS}/${source.id}`, {
      method: "PATCH",
      auth: user,
      body: { content: [paragraph({ text: "nothing now" })] },
    });
    expect(edited.status).toBe(200);
    expect(await stored(source.id)).toEqual([]);
  });

  it("markdown content with a mention link is read as a mention, and exports back to the same markdown", async () => {
    const user = await createUser();
    const target = await page(user);
    const created = await api<{ id: string; content: unknown }>("/api/v1/pages", {
      method: "POST",
      auth: user,
      body: { title: "From markdown", content_markdown: `Ask [@Target](mention:page:${target.id}) first` },
    });
    expect(created.status).toBe(201);
    expect(created.body.content).toEqual([
      paragraph({ text: "Ask " }, mention("page", target.id, "@Target"), { text: " first" }),
    ]);
    expect(await stored(created.body.id)).toEqual([
      { target_type: "page", target_id: target.id, kind: "mention", origin: "content" },
    ]);
    const exported = await api<string>(`/api/v1/pages/${created.body.id}/export?format=markdown`, { auth: user });
    expect(exported.body).toContain(`[@Target](mention:page:${target.id})`);
    const html = await api<string>(`/api/v1/pages/${created.body.id}/export?format=html`, { auth: user });
    expect(html.body).toContain(`data-mention-type="page" data-mention-id="${target.id}"`);
  });

  it("a block in a page belongs to that page; duplicating copies its mentions with the content", async () => {
    const user = await createUser();
    const target = await page(user);
    const container = await page(user);
    const child = await createBlock(user, {
      parent_id: container.id,
      content: [paragraph(mention("page", target.id))],
    });
    const byPage = await api<MentionRecord[]>(`${MENTIONS}/page/${container.id}`, { auth: user });
    expect(byPage.body.map((m) => [m.block_id, m.page_id])).toEqual([[child.id, container.id]]);
    // Each listed mention answers its columns, and not the listing's cursor keys (lib/pagination.ts).
    const byBlock = await api<MentionRecord[]>(`${MENTIONS}/block/${child.id}`, { auth: user });
    for (const listed of [...byPage.body, ...byBlock.body]) {
      expect(Object.keys(listed).filter((name) => name.startsWith("_key"))).toEqual([]);
    }
    expect(byBlock.body).toEqual(byPage.body);

    const copy = await api<{ id: string }>(`${BLOCKS}/${container.id}/duplicate`, { method: "POST", auth: user });
    expect(copy.status).toBe(201);
    const copied = await api<MentionRecord[]>(`${MENTIONS}/page/${copy.body.id}`, { auth: user });
    expect(copied.body).toHaveLength(1);
    expect(copied.body[0]).toMatchObject({ target_id: target.id, page_id: copy.body.id });
  });

  it("content written by a synced-block propagation carries its mentions too", async () => {
    const user = await createUser();
    const target = await page(user);
    const source = await createBlock(user, { content: [paragraph(mention("page", target.id))] });
    const instance = await createBlock(user, { content: [paragraph({ text: "stale" })] });
    const linked = await api("/api/v1/synced-blocks", {
      method: "POST",
      auth: user,
      body: { source_block_id: source.id, instance_block_id: instance.id },
    });
    expect(linked.status).toBe(201);
    const propagated = await api(`/api/v1/synced-blocks/source/${source.id}/propagate`, {
      method: "POST",
      auth: user,
      body: {},
    });
    expect(propagated.status).toBe(200);
    expect(await stored(instance.id)).toEqual([
      { target_type: "page", target_id: target.id, kind: "mention", origin: "content" },
    ]);
  });

  it("a sub-page's mentions are not its parent page's", async () => {
    const user = await createUser();
    const target = await page(user);
    const parent = await page(user);
    await page(user, [paragraph(mention("page", target.id))], { parent_id: parent.id });
    const byPage = await api<MentionRecord[]>(`${MENTIONS}/page/${parent.id}`, { auth: user });
    expect(byPage.status).toBe(200);
    expect(byPage.body).toEqual([]);
  });

  it.each([
    ["an unknown mention type", { type: "team", id: "x" }],
    ["a date mention that is not a date", { type: "date", id: "next tuesday" }],
    ["a date mention of a day that does not exist", { type: "date", id: "2026-02-30" }],
    ["a date mention of a thirteenth month", { type: "date", id: "2026-13-01" }],
    ["a date mention at an hour that does not exist", { type: "date", id: "2026-11-23T24:00:00Z" }],
    ["an empty id", { type: "page", id: "" }],
  ])("refuses content with %s (400), storing nothing", async (_label, bad) => {
    const user = await createUser();
    const res = await api(BLOCKS, {
      method: "POST",
      auth: user,
      body: { type: "page", properties: { title: "x" }, content: [paragraph({ text: "@", mention: bad })] },
    });
    expect(res.status).toBe(400);
    const count = await env.DB.prepare(
      "SELECT count(*) AS n FROM mentions m JOIN blocks b ON b.id = m.block_id WHERE b.created_by = ?",
    )
      .bind(user.id)
      .first("n");
    expect(count).toBe(0);
  });
});

describe("mentions in the content of editor blocks (free-form content)", () => {
  it("keeps only well-formed mentions, and a span that mentions is not also a link", async () => {
    const user = await createUser();
    const block = await createBlock(user, {
      content: [
        { text: "@soon", mention: { type: "date", id: "next tuesday" } },
        { text: "@x", mention: { type: "page", id: "p1" }, link: "https://elsewhere.example/evil" },
        { text: "as link", link: "mention:page:p2" },
      ],
    });
    expect(await stored(block.id)).toEqual([
      { target_type: "page", target_id: "p1", kind: "mention", origin: "content" },
    ]);
  });

  it("a page body in markdown is held to the calendar too: a mention: link to 2025-02-29 is a 400", async () => {
    const user = await createUser();
    const res = await postPage(user, { title: "Dates", content_markdown: "Due [then](mention:date:2025-02-29)" });
    expect(res.status).toBe(400);
    const leap = await postPage(user, { title: "Dates", content_markdown: "Due [then](mention:date:2024-02-29)" });
    expect(leap.status).toBe(201);
    expect(await stored(leap.body.id)).toEqual([
      { target_type: "date", target_id: "2024-02-29", kind: "mention", origin: "content" },
    ]);
  });

  it("a page body's link to a mention: destination is read as the mention it stands for", async () => {
    const user = await createUser();
    const target = await page(user);
    const source = await page(user, [paragraph({ text: "@T", link: `mention:page:${target.id}` })]);
    expect(await stored(source.id)).toEqual([
      { target_type: "page", target_id: target.id, kind: "mention", origin: "content" },
    ]);
  });
});

describe("POST /api/v1/mentions/sync", () => {
  it("with content: stores the content and answers the new set; API mentions are kept", async () => {
    const user = await createUser();
    const a = await page(user);
    const b = await page(user);
    const source = await page(user, [paragraph(mention("page", a.id))]);
    const manual = await api<MentionRecord>(MENTIONS, {
      method: "POST",
      auth: user,
      body: { block_id: source.id, target_type: "date", target_id: "2027-01-01" },
    });
    expect(manual.status).toBe(201);

    const res = await api<{ block_id: string; mentions: MentionRecord[] }>(`${MENTIONS}/sync`, {
      method: "POST",
      auth: user,
      body: { block_id: source.id, content: [paragraph(mention("page", b.id))] },
    });
    expect(res.status).toBe(200);
    expect(res.body.mentions.map((m) => [m.origin, m.target_id]).sort()).toEqual(
      [
        ["api", "2027-01-01"],
        ["content", b.id],
      ].sort(),
    );
    const block = await api<{ content: unknown }>(`${BLOCKS}/${source.id}`, { auth: user });
    expect(block.body.content).toEqual([paragraph(mention("page", b.id))]);
  });

  it("without content: rebuilds the set from the stored content (a lost set comes back)", async () => {
    const user = await createUser();
    const target = await page(user);
    const source = await page(user, [paragraph(mention("page", target.id))]);
    await env.DB.prepare("DELETE FROM mentions WHERE block_id = ?").bind(source.id).run();
    const res = await api<{ mentions: MentionRecord[] }>(`${MENTIONS}/sync`, {
      method: "POST",
      auth: user,
      body: { block_id: source.id },
    });
    expect(res.status).toBe(200);
    expect(res.body.mentions.map((m) => m.target_id)).toEqual([target.id]);
    expect(res.roundTrips).toBeLessThanOrEqual(2);
  });

  it("a sync that changes no content leaves the block as it was: its ETag, updated_at and change log", async () => {
    const user = await createUser();
    const target = await page(user);
    const content = [paragraph(mention("page", target.id))];
    const source = await page(user, content);
    const before = await api<{ updated_at: string }>(`${BLOCKS}/${source.id}`, { auth: user });
    const events = () =>
      env.DB.prepare("SELECT count(*) AS n FROM change_events WHERE object_id = ?").bind(source.id).first("n");
    const eventsBefore = await events();
    for (const body of [{ block_id: source.id }, { block_id: source.id, content }]) {
      const res = await api<{ mentions: MentionRecord[] }>(`${MENTIONS}/sync`, { method: "POST", auth: user, body });
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(res.body.mentions.map((m) => m.target_id)).toEqual([target.id]);
      const after = await api<{ updated_at: string }>(`${BLOCKS}/${source.id}`, { auth: user });
      expect(after.headers.get("ETag"), JSON.stringify(body)).toBe(before.headers.get("ETag"));
      expect(after.body.updated_at).toBe(before.body.updated_at);
    }
    expect(await events()).toBe(eventsBefore);
  });

  it("a sync that fails leaves the old set whole (invalid content: nothing changes)", async () => {
    const user = await createUser();
    const target = await page(user);
    const source = await page(user, [paragraph(mention("page", target.id))]);
    const before = await stored(source.id);
    const res = await api(`${MENTIONS}/sync`, {
      method: "POST",
      auth: user,
      body: { block_id: source.id, content: [{ type: "heading", children: [mention("page", "other")] }] },
    });
    expect(res.status).toBe(400);
    expect(await stored(source.id)).toEqual(before);
  });

  it("is atomic when the write itself fails mid-statement: the old set stands", async () => {
    const user = await createUser();
    const target = await page(user);
    const source = await page(user, [paragraph(mention("page", target.id))]);
    const before = await stored(source.id);
    // A failure injected after the old mentions are deleted and while the new ones are written.
    await env.DB.exec(
      "CREATE TRIGGER fail_new_mentions BEFORE INSERT ON mentions WHEN NEW.target_id = 'explode' BEGIN SELECT RAISE(ABORT, 'injected failure'); END",
    );
    try {
      const res = await api(`${MENTIONS}/sync`, {
        method: "POST",
        auth: user,
        body: { block_id: source.id, content: [paragraph(mention("page", "fine"), mention("page", "explode"))] },
      });
      expect(res.status).toBe(500);
    } finally {
      await env.DB.exec("DROP TRIGGER fail_new_mentions");
    }
    expect(await stored(source.id)).toEqual(before);
    const block = await api<{ content: unknown }>(`${BLOCKS}/${source.id}`, { auth: user });
    expect(block.body.content).toEqual([paragraph(mention("page", target.id))]);
  });

  it("answers 503 when the mentions table is missing (migration not applied)", async () => {
    const user = await createUser();
    const source = await page(user);
    await env.DB.exec("ALTER TABLE mentions RENAME TO mentions_away");
    try {
      const res = await api(`${MENTIONS}/sync`, { method: "POST", auth: user, body: { block_id: source.id } });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: "unavailable", details: { table: "mentions" } });
    } finally {
      await env.DB.exec("ALTER TABLE mentions_away RENAME TO mentions");
    }
  });

  it.each([
    ["no block_id", {}],
    ["a block_id that is not a string", { block_id: 5 }],
    ["an extra field", { block_id: "x", force: true }],
  ])("answers 400 for %s", async (_label, body) => {
    const user = await createUser();
    const res = await api(`${MENTIONS}/sync`, { method: "POST", auth: user, body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_failed", details: expect.any(Object) });
  });

  it("another user's block is a 404", async () => {
    const owner = await createUser();
    const intruder = await createUser();
    const source = await page(owner);
    const res = await api(`${MENTIONS}/sync`, { method: "POST", auth: intruder, body: { block_id: source.id } });
    expectErrorBody(res, 404);
  });
});

describe("mentions recorded through the API", () => {
  it("create, change, delete: the author only; a content mention changes only with its content", async () => {
    const author = await createUser();
    const target = await page(author);
    const other = await page(author);
    const shared = await createBlock(author, { type: "page", properties: { title: "shared" } });
    await env.DB.prepare("UPDATE blocks SET created_by = NULL WHERE id = ?").bind(shared.id).run();

    const created = await api<MentionRecord>(MENTIONS, {
      method: "POST",
      auth: author,
      body: { block_id: shared.id, target_type: "page", target_id: target.id },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ origin: "api", kind: "mention", created_by: author.id, page_id: shared.id });

    const changed = await api<MentionRecord>(`${MENTIONS}/${created.body.id}`, {
      method: "PATCH",
      auth: author,
      body: { target_id: other.id },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.target_id).toBe(other.id);

    // Someone who can see the shared block, but did not write the mention.
    const colleague = await createUser();
    const refused = await api(`${MENTIONS}/${created.body.id}`, { method: "DELETE", auth: colleague });
    expectErrorBody(refused, 403);
    const refusedPatch = await api(`${MENTIONS}/${created.body.id}`, {
      method: "PATCH",
      auth: colleague,
      body: { target_type: "date", target_id: "2026-01-01" },
    });
    expectErrorBody(refusedPatch, 403);

    const fromContent = await page(author, [paragraph(mention("page", target.id))]);
    const [contentMention] = (await api<MentionRecord[]>(`${MENTIONS}/block/${fromContent.id}`, { auth: author })).body;
    const conflict = await api(`${MENTIONS}/${contentMention?.id}`, { method: "DELETE", auth: author });
    expectErrorBody(conflict, 409);

    const deleted = await api(`${MENTIONS}/${created.body.id}`, { method: "DELETE", auth: author });
    expect(deleted.status).toBe(200);
    expect((await api(`${MENTIONS}/${created.body.id}`, { method: "DELETE", auth: author })).status).toBe(404);
  });

  const mentionDate = (user: TestUser, blockId: string, day: string) =>
    api<MentionRecord>(MENTIONS, {
      method: "POST",
      auth: user,
      body: { block_id: blockId, target_type: "date", target_id: day },
    });

  it.each([
    "not a date",
    "2026-13-01",
    "2026-00-10",
    "2026-02-30",
    "2025-02-29",
    "1900-02-29",
    "2026-04-31",
    "2026-01-00",
    "2026-11-23T24:00:00Z",
    "2026-11-23T10:60Z",
    "2026-11-23T10:00:60Z",
    "2026-11-23T10:00+24:00",
    "2026-11-23T10:00-05:60",
  ])("a date mention of what is no date on the calendar (%s) is a 400, on create and on PATCH", async (day) => {
    const user = await createUser();
    const source = await page(user);
    expectErrorBody(await mentionDate(user, source.id, day), 400);
    const created = await mentionDate(user, source.id, "2026-02-02");
    const patch = await api(`${MENTIONS}/${created.body.id}`, {
      method: "PATCH",
      auth: user,
      body: { target_id: day },
    });
    expectErrorBody(patch, 400);
    expect(await stored(source.id)).toEqual([
      { target_type: "date", target_id: "2026-02-02", kind: "mention", origin: "api" },
    ]);
  });

  it.each(["2024-02-29", "2000-02-29", "2026-04-30", "2026-12-31T23:59:59.999Z", "2026-11-23T00:00+14:00"])(
    "a date mention of a date that exists (%s) is taken",
    async (day) => {
      const user = await createUser();
      const res = await mentionDate(user, (await page(user)).id, day);
      expect(res.status).toBe(201);
      expect(res.body.target_id).toBe(day);
    },
  );

  it("a user mention takes any user id: whether a user exists is not for the caller to learn", async () => {
    const user = await createUser();
    const source = await page(user);
    const res = await api(MENTIONS, {
      method: "POST",
      auth: user,
      body: { block_id: source.id, target_type: "user", target_id: "no-such-user" },
    });
    expect(res.status).toBe(201);
  });

  it("refuses targets the caller cannot see (404) and bad input (400), storing nothing", async () => {
    const user = await createUser();
    const stranger = await createUser();
    const theirs = await page(stranger);
    const mine = await page(user);
    const cases: [unknown, number][] = [
      [{ block_id: mine.id, target_type: "page", target_id: theirs.id }, 404],
      [{ block_id: theirs.id, target_type: "date", target_id: "2026-01-01" }, 404],

      [{ block_id: mine.id, target_type: "date", target_id: "soon" }, 400],
      [{ block_id: mine.id, target_type: "team", target_id: "x" }, 400],
      [{ block_id: mine.id, target_type: "page" }, 400],
      [{ block_id: mine.id, target_type: "page", target_id: mine.id, extra: 1 }, 400],
    ];
    for (const [body, status] of cases) {
      const res = await api(MENTIONS, { method: "POST", auth: user, body });
      expect(res.status, JSON.stringify(body)).toBe(status);
    }
    expect(await stored(mine.id)).toEqual([]);
    expect(await stored(theirs.id)).toEqual([]);
  });

  it("listings are paginated, oldest first, in one round trip after auth", async () => {
    const user = await createUser();
    const source = await page(user);
    for (const day of ["2026-01-01", "2026-01-02", "2026-01-03"]) {
      const res = await api(MENTIONS, {
        method: "POST",
        auth: user,
        body: { block_id: source.id, target_type: "date", target_id: day },
      });
      expect(res.status).toBe(201);
    }
    const first = await api<MentionRecord[]>(`${MENTIONS}/block/${source.id}?limit=2`, { auth: user });
    expect(first.body.map((m) => m.target_id)).toEqual(["2026-01-01", "2026-01-02"]);
    expect(first.headers.get("X-Has-More")).toBe("true");
    expect(first.headers.get("X-Total-Count")).toBe("3");
    expect(first.queryRoundTrips).toBe(1);
    const byPage = await api<MentionRecord[]>(`${MENTIONS}/page/${source.id}?offset=2`, { auth: user });
    expect(byPage.body.map((m) => m.target_id)).toEqual(["2026-01-03"]);
    expect(byPage.queryRoundTrips).toBe(1);
  });
});

async function mentionTarget(owner: TestUser) {
  const target = await page(owner);
  const res = await api<MentionRecord>(MENTIONS, {
    method: "POST",
    auth: owner,
    body: { block_id: target.id, target_type: "date", target_id: "2026-05-05" },
  });
  return { id: res.body.id, block: target.id };
}
const readMentions = async (owner: TestUser, target: { block: string }) =>
  (await api(`${MENTIONS}/block/${target.block}`, { auth: owner })).body;

describeAuthMatrix({
  name: "GET /api/v1/mentions/block/{blockId}",
  method: "GET",
  path: (id) => `${MENTIONS}/block/${id}`,
  setup: (owner) => page(owner),
});
describeAuthMatrix({
  name: "GET /api/v1/mentions/page/{pageId}",
  method: "GET",
  path: (id) => `${MENTIONS}/page/${id}`,
  setup: (owner) => page(owner),
});
describeAuthMatrix({ name: "POST /api/v1/mentions", method: "POST", path: () => MENTIONS, body: {} });
describeAuthMatrix({ name: "POST /api/v1/mentions/sync", method: "POST", path: () => `${MENTIONS}/sync`, body: {} });
describeAuthMatrix({
  name: "PATCH /api/v1/mentions/{id}",
  method: "PATCH",
  path: (id) => `${MENTIONS}/${id}`,
  body: { target_id: "2026-06-06" },
  setup: mentionTarget,
  readBack: readMentions,
});
describeAuthMatrix({
  name: "DELETE /api/v1/mentions/{id}",
  method: "DELETE",
  path: (id) => `${MENTIONS}/${id}`,
  setup: mentionTarget,
  readBack: readMentions,
});
