import { describe, expect, it } from "vitest";
import { api, createUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { createBlock, getBlock, insertBlock, issuePaths, storedRow } from "../../helpers/blocks";
import { createDatabase, createRow, storedRowIds } from "../../helpers/databases";
import {
  countChildrenStored,
  createPage,
  getPage,
  listPages,
  PAGES,
  putPage,
  readPageTarget,
  setupPageTarget,
  storedContent,
  storedProperties,
} from "../../helpers/pages";

describeAuthMatrix({
  name: "PUT /api/v1/pages/{id}",
  method: "PUT",
  path: (id) => `${PAGES}/${id}`,
  body: { properties: { meta: { b: 2 } }, content: [{ type: "paragraph", children: [{ text: "taken over" }] }] },
  setup: setupPageTarget,
  readBack: readPageTarget,
});

describeAuthMatrix({
  name: "DELETE /api/v1/pages/{id}",
  method: "DELETE",
  path: (id) => `${PAGES}/${id}`,
  setup: setupPageTarget,
  readBack: readPageTarget,
});

describeAuthMatrix({
  name: "DELETE /api/v1/pages/{id}?permanent=true",
  method: "DELETE",
  path: (id) => `${PAGES}/${id}?permanent=true`,
  setup: setupPageTarget,
  readBack: readPageTarget,
});

const paragraph = (text: string) => ({ type: "paragraph", children: [{ text }] });

describe("PUT /api/v1/pages/{id}: properties", () => {
  it("deep-merges nested properties: nested objects merge, null removes, others stay", async () => {
    const user = await createUser();
    const page = await createPage(user, {
      title: "Merge me",
      properties: { icon: "📄", meta: { a: 1, b: { c: 2, keep: true }, gone: "x" }, list: [1, 2] },
    });
    const res = await putPage(user, page.id, {
      properties: { meta: { b: { d: 3 }, gone: null }, list: [3], added: "new", icon: null },
    });
    const expected = {
      title: "Merge me",
      meta: { a: 1, b: { c: 2, keep: true, d: 3 } },
      list: [3],
      added: "new",
    };
    expect(res.status).toBe(200);
    expect(res.body.properties).toEqual(expected);
    expect(res.body.last_edited_by).toBe(user.id);
    expect(await storedProperties(page.id)).toEqual(expected);
    expect((await getPage(user, page.id)).body).toEqual(res.body);
  });

  it("leaves the content alone when only properties are given", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Body stays", content: [paragraph("kept")] });
    const res = await putPage(user, page.id, { properties: { icon: "⭐" } });
    expect(res.body.content).toEqual([paragraph("kept")]);
    expect(await storedContent(page.id)).toEqual([paragraph("kept")]);
  });

  it("sets the title from `title`, keeping the other properties", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Old", properties: { icon: "x" } });
    const res = await putPage(user, page.id, { title: "New" });
    expect(res.body.properties).toEqual({ title: "New", icon: "x" });
    expect(await storedProperties(page.id)).toEqual({ title: "New", icon: "x" });
  });

  it("keeps created_by and created_at and sets updated_at", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Times" });
    const res = await putPage(user, page.id, { properties: { x: 1 } });
    expect(res.body).toMatchObject({ created_by: user.id, created_at: page.created_at });
    expect(res.body.updated_at >= page.updated_at).toBe(true);
  });

  it("edits a shared page without taking ownership of it", async () => {
    const user = await createUser();
    const id = await insertBlock({ type: "page", created_by: null, properties: { title: "Shared", a: { b: 1 } } });
    const res = await putPage(user, id, { properties: { a: { c: 2 } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ created_by: null, last_edited_by: user.id });
    expect(await storedProperties(id)).toEqual({ title: "Shared", a: { b: 1, c: 2 } });
    expect((await storedRow(id))?.created_by).toBeNull();
  });
});

describe("PUT /api/v1/pages/{id}: content", () => {
  it("replaces the body with content, keeping the properties", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Body", content: [paragraph("one"), paragraph("two")] });
    const res = await putPage(user, page.id, { content: [{ type: "heading-1", children: [{ text: "Only" }] }] });
    expect(res.status).toBe(200);
    expect(res.body.content).toEqual([{ type: "heading-1", children: [{ text: "Only" }] }]);
    expect(res.body.properties).toEqual({ title: "Body" });
    expect(await storedContent(page.id)).toEqual([{ type: "heading-1", children: [{ text: "Only" }] }]);
  });

  it("replaces the body with content_markdown", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Body", content: [paragraph("old")] });
    const res = await putPage(user, page.id, { content_markdown: "> quoted\n\n---" });
    const expected = [
      { type: "quote", children: [{ text: "quoted" }] },
      { type: "divider", children: [{ text: "" }] },
    ];
    expect(res.body.content).toEqual(expected);
    expect(await storedContent(page.id)).toEqual(expected);
  });

  it("empties the body with content: null or []", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Body", content: [paragraph("old")] });
    await putPage(user, page.id, { content: [] });
    expect(await storedContent(page.id)).toEqual([]);
    await putPage(user, page.id, { content: [paragraph("again")] });
    await putPage(user, page.id, { content: null });
    expect(await storedContent(page.id)).toBeNull();
  });

  it.each([
    ["both content and content_markdown", { content: [], content_markdown: "x" }, "fields"],
    ["a title differing from properties.title", { title: "A", properties: { title: "B" } }, "fields"],
    ["content that is not an array", { content: { type: "paragraph" } }, "issues"],
    ["an item without a type", { content: [{ children: [{ text: "x" }] }] }, "issues"],
    ["properties as a string", { properties: "x" }, "issues"],
    ["an unknown field", { parent_id: "x" }, "issues"],
    ["a server field it does not accept", { type: "database" }, "issues"],
    ["malformed JSON", "{properties", undefined],
  ])("refuses %s (400 with details) and changes nothing", async (_case, body, detailKey) => {
    const user = await createUser();
    const target = await setupPageTarget(user);
    const before = await readPageTarget(user, target);
    const res = await putPage(user, target.id, body);
    expectErrorBody(res, 400);
    if (detailKey)
      expect((res.body as unknown as { details: Record<string, unknown> }).details).toHaveProperty(detailKey);
    expect(await readPageTarget(user, target)).toEqual(before);
  });

  it("404 for an editor block, which stays unchanged", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Holder" });
    const block = await createBlock(user, { parent_id: page.id, properties: { text: "para" } });
    expectErrorBody(await putPage(user, block.id, { properties: { text: "changed" } }), 404);
    expect((await getBlock(user, block.id)).body).toEqual(block);
  });

  it("404 for a page that does not exist", async () => {
    const user = await createUser();
    expectErrorBody(await putPage(user, crypto.randomUUID(), { properties: {} }), 404);
  });
});

describe("DELETE /api/v1/pages/{id}", () => {
  it("moves the page to the trash by default, keeping it and its children stored", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Trash me" });
    const child = await createBlock(user, { parent_id: page.id });
    const res = await api(`${PAGES}/${page.id}`, { method: "DELETE", auth: user });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String), trashed: true, deleted_count: 0 });
    expect(await storedRow(page.id)).toMatchObject({ in_trash: 1, archived: 0 });
    expect(await storedRow(child.id)).toMatchObject({ in_trash: 0 });
    expectErrorBody(await getPage(user, page.id), 404);
    const trash = await listPages(user, "in_trash=true&type=page");
    expect(trash.body.map((s) => s.id)).toContain(page.id);
    // Restorable through the blocks endpoints.
    expect((await api(`/api/v1/blocks/${page.id}/restore`, { method: "POST", auth: user })).status).toBe(200);
    expect((await getPage(user, page.id)).status).toBe(200);
  });

  it("?permanent=false trashes too", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Trash me" });
    const res = await api(`${PAGES}/${page.id}?permanent=false`, { method: "DELETE", auth: user });
    expect(res.body).toMatchObject({ trashed: true, deleted_count: 0 });
    expect(await storedRow(page.id)).toMatchObject({ in_trash: 1 });
  });

  it("?permanent=true deletes the page and its subtree for good", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Gone" });
    const child = await createBlock(user, { parent_id: page.id });
    const grandchild = await createBlock(user, { parent_id: child.id });
    const res = await api(`${PAGES}/${page.id}?permanent=true`, { method: "DELETE", auth: user });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String), trashed: false, deleted_count: 3 });
    for (const id of [page.id, child.id, grandchild.id]) expect(await storedRow(id)).toBeNull();
  });

  it("?permanent=true on a database deletes its rows with it", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    await createRow(user, database.id, { title: "r1" });
    await createRow(user, database.id, { title: "r2" });
    const res = await api(`${PAGES}/${database.id}?permanent=true`, { method: "DELETE", auth: user });
    expect(res.body).toMatchObject({ trashed: false, deleted_count: 3 });
    expect(await storedRow(database.id)).toBeNull();
    expect(await storedRowIds(database.id)).toEqual([]);
  });

  it("trashes a database row", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const row = await createRow(user, database.id, { title: "r1" });
    const res = await api(`${PAGES}/${row.id}`, { method: "DELETE", auth: user });
    expect(res.body).toMatchObject({ trashed: true });
    expect(await storedRow(row.id)).toMatchObject({ in_trash: 1 });
  });

  it("404 for an editor block, which stays stored", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Holder" });
    const block = await createBlock(user, { parent_id: page.id });
    for (const query of ["", "?permanent=true"]) {
      expectErrorBody(await api(`${PAGES}/${block.id}${query}`, { method: "DELETE", auth: user }), 404);
    }
    expect(await storedRow(block.id)).toMatchObject({ in_trash: 0 });
  });

  it.each(["permanent=yes", "permanent=1", "force=true"])(
    "400 with details for ?%s, changing nothing",
    async (query) => {
      const user = await createUser();
      const page = await createPage(user, { title: "Stays" });
      const res = await api(`${PAGES}/${page.id}?${query}`, { method: "DELETE", auth: user });
      expectErrorBody(res, 400);
      expect(issuePaths(res.body).length).toBeGreaterThan(0);
      expect(await storedRow(page.id)).toMatchObject({ in_trash: 0 });
    },
  );
});

describe("provider_audit_log blocks through the pages endpoints", () => {
  async function auditLog() {
    const user = await createUser();
    const page = await createPage(user, { title: "Holder" });
    const id = await insertBlock({
      type: "provider_audit_log",
      parent_id: page.id,
      created_by: user.id,
      properties: { title: "audit", provider: "x" },
      content: [paragraph("secret")],
    });
    return { user, page, id, before: await storedRow(id) };
  }

  it("GET is a 404", async () => {
    const { user, id } = await auditLog();
    expectErrorBody(await getPage(user, id), 404);
  });

  it("PUT is a 404 and changes nothing", async () => {
    const { user, id, before } = await auditLog();
    const res = await putPage(user, id, { properties: { provider: "changed" }, content: [paragraph("overwritten")] });
    expectErrorBody(res, 404);
    expect(await storedRow(id)).toEqual(before);
  });

  it("DELETE (trash or permanent) is a 404 and changes nothing", async () => {
    const { user, id, before } = await auditLog();
    for (const query of ["", "?permanent=true"]) {
      expectErrorBody(await api(`${PAGES}/${id}${query}`, { method: "DELETE", auth: user }), 404);
    }
    expect(await storedRow(id)).toEqual(before);
  });

  it("a shared provider_audit_log is a 404 as well", async () => {
    const user = await createUser();
    const id = await insertBlock({ type: "provider_audit_log", created_by: null, properties: { title: "audit" } });
    const before = await storedRow(id);
    expectErrorBody(await getPage(user, id), 404);
    expectErrorBody(await putPage(user, id, { properties: { title: "x" } }), 404);
    expect(await storedRow(id)).toEqual(before);
  });

  it("permanently deleting the parent page does not delete the audit log nor touch its data", async () => {
    const { user, page, id, before } = await auditLog();
    const res = await api(`${PAGES}/${page.id}?permanent=true`, { method: "DELETE", auth: user });
    expect(res.body).toMatchObject({ deleted_count: 1 });
    const after = await storedRow(id);
    expect(after).toMatchObject({
      type: "provider_audit_log",
      properties: before?.properties,
      content: before?.content,
    });
  });

  it("cannot be used as the parent of a new page (404), nothing stored", async () => {
    const { user, id } = await auditLog();
    const res = await api(PAGES, { method: "POST", auth: user, body: { title: "Child", parent_id: id } });
    expectErrorBody(res, 404);
    expect(await countChildrenStored(id)).toBe(0);
  });
});
