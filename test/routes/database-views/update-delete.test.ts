import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { issuePaths } from "../../helpers/blocks";
import { createDatabase } from "../../helpers/databases";
import {
  createView,
  getView,
  listViews,
  patchView,
  readViewTarget,
  setupViewTarget,
  storedView,
  VIEWS,
} from "../../helpers/views";

describeAuthMatrix({
  name: "PATCH /api/database-views/view/{view_id}",
  method: "PATCH",
  path: (id) => `${VIEWS}/view/${id}`,
  body: { name: "Taken over", view_type: "table", date_property: null },
  setup: setupViewTarget,
  readBack: readViewTarget,
});

describeAuthMatrix({
  name: "DELETE /api/database-views/view/{view_id}",
  method: "DELETE",
  path: (id) => `${VIEWS}/view/${id}`,
  setup: setupViewTarget,
  readBack: readViewTarget,
});

const deleteView = (user: TestUser, id: string) => api(`${VIEWS}/view/${id}`, { method: "DELETE", auth: user });

describe("PATCH /api/database-views/view/{view_id}", () => {
  it("renames a view and keeps everything else", async () => {
    const user = await createUser();
    const { id } = await setupViewTarget(user);
    const before = await storedView(id);
    const res = await patchView(user, id, { name: "Renamed" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...before, name: "Renamed", updated_at: expect.any(String) });
    expect(await storedView(id)).toEqual(res.body);
    expect((await getView(user, id)).body).toEqual(res.body);
  });

  it("replaces filters, sorts and visible properties, stored with canonical ids", async () => {
    const user = await createUser();
    const { id, database } = await setupViewTarget(user);
    const res = await patchView(user, id, {
      filters: [{ property: "Urgent", operator: "equals", value: true }],
      sorts: [{ property: "due", direction: "desc" }],
      visible_properties: ["Notes"],
      position: 7,
    });
    const expected = {
      filters: [{ property: database.prop("Urgent").id, operator: "equals", value: true }],
      sorts: [{ property: database.prop("Due").id, direction: "desc" }],
      visible_properties: [database.prop("Notes").id],
      position: 7,
    };
    expect(res.body).toMatchObject(expected);
    expect(await storedView(id)).toMatchObject(expected);

    const reset = await patchView(user, id, { visible_properties: null, filters: [], position: null });
    expect(reset.body).toMatchObject({ visible_properties: null, filters: [], position: null });
    expect(await storedView(id)).toMatchObject({ visible_properties: null, filters: [], position: null });
  });

  it("concurrent changes to different settings both land", async () => {
    const user = await createUser();
    const { id } = await setupViewTarget(user);
    const results = await Promise.all([
      patchView(user, id, { name: "Renamed" }),
      patchView(user, id, { position: 3 }),
      patchView(user, id, { sorts: [{ property: "Due", direction: "asc" }] }),
    ]);
    expect(results.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(await storedView(id)).toMatchObject({ name: "Renamed", position: 3 });
    expect((await storedView(id))?.sorts).toHaveLength(1);
  });

  it("changes a calendar's date property", async () => {
    const user = await createUser();
    const { id, database } = await setupViewTarget(user);
    const res = await patchView(user, id, { date_property: "last_edited_time" });
    expect(res.body.date_property).toBe(database.prop("last_edited_time").id);
  });

  it("changing the type drops the old layout fields", async () => {
    const user = await createUser();
    const { id } = await setupViewTarget(user);
    const res = await patchView(user, id, { view_type: "table" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ view_type: "table", date_property: null, timeline_scale: null });
    expect(await storedView(id)).toMatchObject({ view_type: "table", date_property: null });
  });

  it("changes a calendar into a timeline given its start, with the default scale", async () => {
    const user = await createUser();
    const { id, database } = await setupViewTarget(user);
    const res = await patchView(user, id, { view_type: "timeline", start_date_property: "Due" });
    expect(res.body).toMatchObject({
      view_type: "timeline",
      date_property: null,
      start_date_property: database.prop("Due").id,
      timeline_scale: "week",
    });
    const scaled = await patchView(user, id, { timeline_scale: "day" });
    expect(scaled.body).toMatchObject({ timeline_scale: "day", start_date_property: database.prop("Due").id });
  });

  it.each([
    ["a table made a calendar without date_property", { view_type: "calendar" }, { field: "date_property" }],
    ["a table made a timeline without start", { view_type: "timeline" }, { field: "start_date_property" }],
    ["a date_property on a table", { date_property: "Due" }, { field: "date_property" }],
  ])("400 for %s, changing nothing", async (_case, body, details) => {
    const user = await createUser();
    const database = await createDatabase(user);
    const view = await createView(user, database.id, { view_type: "table" });
    const before = await storedView(view.id);
    const res = await patchView(user, view.id, body);
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details });
    expect(await storedView(view.id)).toEqual(before);
  });

  it.each([
    ["clearing a calendar's date_property", { date_property: null }, { field: "date_property" }],
    ["a text date_property", { date_property: "Notes" }, { field: "date_property", type: "text" }],
    ["an unknown date_property", { date_property: "Deadline" }, { field: "date_property" }],
    [
      "a filter on an unknown option",
      { filters: [{ property: "Stage", operator: "equals", value: "Done" }] },
      { allowed: ["Not started", "In progress", "Complete"] },
    ],
    ["an unknown visible property", { visible_properties: ["Colour"] }, { field: "visible_properties[0]" }],
    ["timeline_scale on a calendar", { timeline_scale: "week" }, { field: "timeline_scale" }],
  ])("400 for %s on a calendar, changing nothing", async (_case, body, details) => {
    const user = await createUser();
    const { id } = await setupViewTarget(user);
    const before = await storedView(id);
    const res = await patchView(user, id, body);
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details });
    expect(await storedView(id)).toEqual(before);
  });

  it.each([
    ["an unsupported view_type", { view_type: "gantt" }, "view_type"],
    ["an empty name", { name: "" }, "name"],
    ["an unknown field", { database_id: "elsewhere" }, ""],
    ["a bad timeline_scale", { timeline_scale: "quarter" }, "timeline_scale"],
  ])("400 with validation details for %s, changing nothing", async (_case, body, path) => {
    const user = await createUser();
    const { id } = await setupViewTarget(user);
    const before = await storedView(id);
    const res = await patchView(user, id, body);
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain(path);
    expect(await storedView(id)).toEqual(before);
  });

  it("404 for a view that does not exist", async () => {
    const user = await createUser();
    expectErrorBody(await patchView(user, crypto.randomUUID(), { name: "x" }), 404);
  });
});

describe("DELETE /api/database-views/view/{view_id}", () => {
  it("deletes the view, leaving the database's other views", async () => {
    const user = await createUser();
    const { id, database } = await setupViewTarget(user);
    const kept = await createView(user, database.id, { view_type: "table" });
    const res = await deleteView(user, id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String) });
    expect(await storedView(id)).toBeNull();
    expectErrorBody(await getView(user, id), 404);
    expect((await listViews(user, database.id)).body).toEqual([kept]);
  });

  it("404 the second time, and for a view that never existed", async () => {
    const user = await createUser();
    const { id } = await setupViewTarget(user);
    await deleteView(user, id);
    expectErrorBody(await deleteView(user, id), 404);
    expectErrorBody(await deleteView(user, crypto.randomUUID()), 404);
  });

  it("views go with their database when it is deleted permanently", async () => {
    const user = await createUser();
    const { id, database } = await setupViewTarget(user);
    await api(`/api/v1/pages/${database.id}?permanent=true`, { method: "DELETE", auth: user });
    expect(await storedView(id)).toBeNull();
  });
});
