import { describe, expect, it } from "vitest";
import type { DatabaseOption } from "../../../src/schemas/quick-tasks";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { createBlock } from "../../helpers/blocks";
import { createDatabase } from "../../helpers/databases";

const OPTIONS = "/api/v1/tasks/database-options";

const paragraph = (...children: unknown[]) => ({ type: "paragraph", children });
const page = (user: TestUser, title: string, content: unknown[] = [], extra: Record<string, unknown> = {}) =>
  createBlock(user, { type: "page", properties: { title }, content, ...extra });
const options = (user: TestUser, query = "") => api<DatabaseOption[]>(`${OPTIONS}${query}`, { auth: user });
const trash = (user: TestUser, id: string) =>
  api(`/api/v1/blocks/${id}`, { method: "PATCH", auth: user, body: { in_trash: true } });

describeAuthMatrix({ name: "GET /api/v1/tasks/database-options", method: "GET", path: () => OPTIONS });

describe("GET /api/v1/tasks/database-options", () => {
  it("lists databases and the pages that parent, embed or link to them, each saving the real database id", async () => {
    const user = await createUser();
    const work = await page(user, "Work");
    const sprint = await createDatabase(user, { title: "Sprint board", parentId: work.id, properties: [] });
    const reading = await createDatabase(user, { title: "Reading list", properties: [] });
    const shelf = await page(user, "Reading list", [
      { type: "embed", url: `https://app.example/databases/${reading.id}?view=table` },
    ]);
    const index = await page(user, "Index", [
      paragraph({ text: "board", link: `/pages/${sprint.id}` }),
      paragraph({ text: "@Reading", mention: { type: "page", id: reading.id } }),
    ]);
    // A link in one of a page's editor blocks makes that page a wrapper too.
    const journal = await page(user, "Journal");
    await createBlock(user, { parent_id: journal.id, content: [paragraph({ text: "see", link: reading.id })] });
    // The parent page also links to its database: listed once, as its parent.
    await api(`/api/v1/pages/${work.id}`, {
      method: "PUT",
      auth: user,
      body: { content: [paragraph({ text: "the board", link: `/pages/${sprint.id}` })] },
    });

    const res = await options(user);
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Total-Count")).toBe("7");
    const option = (
      databaseId: string,
      title: string,
      pageId: string | null,
      pageTitle: string | null,
      relation: string,
    ): DatabaseOption =>
      ({
        database_id: databaseId,
        database_title: title,
        page_id: pageId,
        page_title: pageTitle,
        title_mismatch: pageTitle !== null && pageTitle !== title,
        relation,
        is_default: false,
        is_template: false,
      }) as DatabaseOption;
    // By database title; each database before its wrappers, the closest wrapping first.
    const [readingLinks, sprintLinks] = [
      [index.id, journal.id]
        .sort()
        .map((id) => option(reading.id, "Reading list", id, id === index.id ? "Index" : "Journal", "link")),
      [option(sprint.id, "Sprint board", index.id, "Index", "link")],
    ];
    expect(res.body).toEqual([
      option(reading.id, "Reading list", null, null, "database"),
      option(reading.id, "Reading list", shelf.id, "Reading list", "embed"),
      ...readingLinks,
      option(sprint.id, "Sprint board", null, null, "database"),
      option(sprint.id, "Sprint board", work.id, "Work", "parent"),
      ...sprintLinks,
    ]);
    expect(res.body.find((entry) => entry.page_id === work.id)?.title_mismatch).toBe(true);
    expect(res.body.find((entry) => entry.page_id === shelf.id)?.title_mismatch).toBe(false);
  });

  it("puts the saved default and the built-in Tasks database first, and marks them", async () => {
    const user = await createUser();
    await createDatabase(user, { title: "Alpha", properties: [] });
    const saved = await createDatabase(user, { title: "Zulu", properties: [] });
    const task = await api<{ target_database: { id: string } }>("/api/v1/tasks/from-natural-language", {
      method: "POST",
      auth: user,
      body: { text: "Install the template", timezone: "UTC" },
    });
    await api("/api/v1/settings", { method: "PATCH", auth: user, body: { quickTaskDatabaseId: saved.id } });
    const res = await options(user);
    expect(res.body.map((entry) => [entry.database_title, entry.is_default, entry.is_template])).toEqual([
      ["Zulu", true, false],
      ["Tasks", false, true],
      ["Alpha", false, false],
    ]);
    expect(res.body[1]?.database_id).toBe(task.body.target_database.id);
  });

  it("leaves out what the caller cannot use: trashed or archived databases and pages, another user's", async () => {
    const user = await createUser();
    const other = await createUser();
    const theirs = await createDatabase(other, { title: "Theirs", properties: [] });
    await page(user, "Links to theirs", [paragraph({ text: "x", link: `/pages/${theirs.id}` })]);
    const trashed = await createDatabase(user, { title: "Trashed", properties: [] });
    await trash(user, trashed.id);
    const kept = await createDatabase(user, { title: "Kept", properties: [] });
    const oldPage = await page(user, "Old page", [paragraph({ text: "x", link: `/pages/${kept.id}` })]);
    await trash(user, oldPage.id);
    const archived = await createDatabase(user, { title: "Archived", properties: [] });
    await api(`/api/v1/blocks/${archived.id}`, { method: "PATCH", auth: user, body: { archived: true } });
    const res = await options(user);
    expect(res.body.map((entry) => [entry.database_title, entry.page_id])).toEqual([["Kept", null]]);
    expect((await options(other)).body.map((entry) => entry.database_title)).toEqual(["Theirs"]);
  });

  it("paginates like every listing", async () => {
    const user = await createUser();
    for (const title of ["A", "B", "C"]) await createDatabase(user, { title, properties: [] });
    const first = await options(user, "?limit=2");
    expect(first.body.map((entry) => entry.database_title)).toEqual(["A", "B"]);
    expect(first.headers.get("X-Total-Count")).toBe("3");
    const second = await options(user, "?limit=2&offset=2");
    expect(second.body.map((entry) => entry.database_title)).toEqual(["C"]);
    expectErrorBody(await options(user, "?limit=0"), 400);
    expectErrorBody(await options(user, "?offset=-1"), 400);
  });
});
