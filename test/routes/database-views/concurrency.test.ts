import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../../helpers/api";
import { expectErrorBody } from "../../helpers/auth-matrix";
import {
  addProperty,
  createDatabase,
  createRow,
  DATABASES,
  schemaRecords,
  storedRows,
  type TestDatabase,
} from "../../helpers/databases";
import { createView, type DatabaseView, patchView, storedView } from "../../helpers/views";

// Saved views against concurrent view updates and against schema changes: a
// stored view is always one that a single PATCH would accept, so a plain
// rename of it afterwards always succeeds.

/** The layout rules a single PATCH enforces, checked on a stored view. */
function expectValidLayout(view: DatabaseView | null) {
  expect(view).not.toBeNull();
  if (!view) return;
  const layout = {
    date_property: view.date_property,
    start_date_property: view.start_date_property,
    end_date_property: view.end_date_property,
    timeline_scale: view.timeline_scale,
  };
  const described = `${view.view_type} ${JSON.stringify(layout)}`;
  if (view.view_type === "calendar") {
    expect(view.date_property, described).not.toBeNull();
    expect([view.start_date_property, view.end_date_property, view.timeline_scale], described).toEqual([
      null,
      null,
      null,
    ]);
  } else if (view.view_type === "timeline") {
    expect(view.start_date_property, described).not.toBeNull();
    expect(view.timeline_scale, described).not.toBeNull();
    expect(view.date_property, described).toBeNull();
  } else {
    expect(layout, described).toEqual({
      date_property: null,
      start_date_property: null,
      end_date_property: null,
      timeline_scale: null,
    });
  }
}

const deleteProperty = (user: TestUser, database: TestDatabase, name: string) =>
  api(`${DATABASES}/${database.id}/properties/${database.prop(name).id}`, { method: "DELETE", auth: user });

const optionPath = (database: TestDatabase, property: string, option: string) =>
  `${DATABASES}/${database.id}/properties/${database.prop(property).id}/options/${database.option(property, option).id}`;

describe("concurrent updates of one view", () => {
  it("a switch to calendar racing a switch to timeline always leaves a valid view, which a rename then accepts", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const views = await Promise.all(
      Array.from({ length: 8 }, (_, i) => createView(user, database.id, { view_type: "table", name: `View ${i}` })),
    );

    const responses = await Promise.all(
      views.flatMap((view) => [
        patchView(user, view.id, { view_type: "calendar", date_property: "Due" }),
        patchView(user, view.id, { view_type: "timeline", start_date_property: "Due", end_date_property: "Due" }),
      ]),
    );

    for (const res of responses) expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const view of views) {
      expectValidLayout(await storedView(view.id));
      const renamed = await patchView(user, view.id, { name: `${view.name} renamed` });
      expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
      expect(await storedView(view.id)).toEqual(renamed.body);
    }
  });

  it("a switch back to table racing a switch to calendar always leaves a valid view", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const views = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        createView(user, database.id, { view_type: "timeline", name: `Timeline ${i}`, start_date_property: "Due" }),
      ),
    );

    const responses = await Promise.all(
      views.flatMap((view) => [
        patchView(user, view.id, { view_type: "table" }),
        patchView(user, view.id, { view_type: "calendar", date_property: "Due" }),
        patchView(user, view.id, { timeline_scale: "month" }),
      ]),
    );

    // A scale change that lands after the switch away from timeline is refused, as it would be alone.
    for (const res of responses) expect([200, 400], JSON.stringify(res.body)).toContain(res.status);
    for (const view of views) {
      expectValidLayout(await storedView(view.id));
      expect((await patchView(user, view.id, { name: "Renamed" })).status).toBe(200);
    }
  });
});

describe("schema changes and the saved views that use them", () => {
  it("deleting a property drops it from filters, sorts and visible properties in the same write; a rename then succeeds", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    await addProperty(user, database.id, { name: "Deadline", type: "date" });
    const view = await createView(user, database.id, {
      view_type: "table",
      name: "Busy table",
      filters: [
        { property: "Priority", operator: "greater_than", value: 1 },
        { property: "Status", operator: "equals", value: "Todo" },
        { property: "Priority", operator: "is_not_empty" },
      ],
      sorts: [
        { property: "Priority", direction: "desc" },
        { property: "title", direction: "asc" },
      ],
      visible_properties: ["title", "Priority", "Status"],
    });
    const timeline = await createView(user, database.id, {
      view_type: "timeline",
      name: "Plan",
      start_date_property: "Due",
      end_date_property: "Deadline",
    });
    const schema = await schemaRecords(database.id);
    const idOf = (name: string) => schema.find((record) => record.name === name)?.id;

    expect((await deleteProperty(user, database, "Priority")).status).toBe(200);
    const deadline = await api(`${DATABASES}/${database.id}/properties/${idOf("Deadline")}`, {
      method: "DELETE",
      auth: user,
    });
    expect(deadline.status, JSON.stringify(deadline.body)).toBe(200);

    const stored = await storedView(view.id);
    expect(stored).toMatchObject({
      filters: [{ property: database.prop("Status").id, operator: "equals", value: "Todo" }],
      sorts: [{ property: database.prop("title").id, direction: "asc" }],
      visible_properties: [database.prop("title").id, database.prop("Status").id],
    });
    expect(await storedView(timeline.id)).toMatchObject({
      start_date_property: database.prop("Due").id,
      end_date_property: null,
    });

    for (const id of [view.id, timeline.id]) {
      const renamed = await patchView(user, id, { name: "Renamed after the delete" });
      expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    }
  });

  it.each([
    ["a calendar's date_property", { view_type: "calendar", date_property: "Due" }],
    ["a timeline's start_date_property", { view_type: "timeline", start_date_property: "Due" }],
  ])("deleting %s is a 409 naming the view, and nothing changes", async (_, layout) => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "Dated", Due: "2026-03-01" });
    const view = await createView(user, database.id, { ...layout, name: "Laid out by Due" });
    const before = { records: await schemaRecords(database.id), rows: await storedRows(database.id) };
    const viewBefore = await storedView(view.id);

    const res = await deleteProperty(user, database, "Due");

    expectErrorBody(res, 409);
    expect((res.body as { details?: { views?: unknown } }).details?.views).toEqual([
      { id: view.id, name: "Laid out by Due" },
    ]);
    expect(await schemaRecords(database.id)).toEqual(before.records);
    expect(await storedRows(database.id)).toEqual(before.rows);
    expect((await storedRows(database.id))[row.id]?.[database.prop("Due").id]).toBe("2026-03-01");
    expect(await storedView(view.id)).toEqual(viewBefore);
  });

  it("removing an option drops the view filters on it; renaming one makes filters naming it follow", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const view = await createView(user, database.id, {
      view_type: "board",
      name: "Board",
      filters: [
        { property: "Status", operator: "equals", value: "Todo" },
        { property: "Status", operator: "not_equals", value: "Doing" },
        { property: "Status", operator: "is_not_empty" },
        { property: "Tags", operator: "contains", value: "Art" },
        { property: "Tags", operator: "not_contains", value: "Music" },
      ],
    });
    const status = database.prop("Status").id;
    const tags = database.prop("Tags").id;

    const removed = [
      await api(optionPath(database, "Status", "Todo"), { method: "DELETE", auth: user }),
      await api(optionPath(database, "Tags", "Music"), { method: "DELETE", auth: user }),
    ];
    for (const res of removed) expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Only the filters on the removed options go: those on other options, or on none, stay.
    expect((await storedView(view.id))?.filters).toEqual([
      { property: status, operator: "not_equals", value: "Doing" },
      { property: status, operator: "is_not_empty" },
      { property: tags, operator: "contains", value: "Art" },
    ]);

    const renamed = [
      await api(optionPath(database, "Status", "Doing"), { method: "PATCH", auth: user, body: { name: "In flight" } }),
      await api(optionPath(database, "Tags", "Art"), { method: "PATCH", auth: user, body: { name: "Painting" } }),
    ];
    for (const res of renamed) expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await storedView(view.id))?.filters).toEqual([
      { property: status, operator: "not_equals", value: "In flight" },
      { property: status, operator: "is_not_empty" },
      { property: tags, operator: "contains", value: "Painting" },
    ]);

    // The view stays one a PATCH accepts, and its filters still match the renamed options.
    const plain = await patchView(user, view.id, { name: "Board renamed" });
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
  });
});
