import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { issuePaths, UUID } from "../../helpers/blocks";
import { createDatabase, readDatabaseTarget, setupDatabaseTarget } from "../../helpers/databases";
import { createPage } from "../../helpers/pages";
import {
  createView,
  getView,
  listViews,
  postView,
  readViewTarget,
  setupViewTarget,
  storedView,
  storedViewsOf,
  VIEW_TYPES,
  VIEWS,
} from "../../helpers/views";

describeAuthMatrix({
  name: "GET /api/database-views/{database_id}",
  method: "GET",
  path: (id) => `${VIEWS}/${id}`,
  setup: setupViewTarget,
  readBack: readViewTarget,
});

describeAuthMatrix({
  name: "POST /api/database-views/{database_id}",
  method: "POST",
  path: (id) => `${VIEWS}/${id}`,
  body: { view_type: "table", name: "Intruder view" },
  setup: async (owner) => {
    const database = await setupDatabaseTarget(owner);
    return { id: database.id };
  },
  readBack: async (owner, target) => ({
    database: await readDatabaseTarget(owner, target),
    views: await storedViewsOf(target.id),
  }),
});

describeAuthMatrix({
  name: "GET /api/database-views/view/{view_id}",
  method: "GET",
  path: (id) => `${VIEWS}/view/${id}`,
  setup: setupViewTarget,
  readBack: readViewTarget,
});

/** The layout fields each view type needs to be created. */
const LAYOUT: Record<string, Record<string, unknown>> = {
  calendar: { date_property: "Due" },
  timeline: { start_date_property: "Due" },
};

describe("POST /api/database-views/{database_id}", () => {
  it.each(VIEW_TYPES)("creates a %s view with its default name, and stores it", async (viewType) => {
    const user = await createUser();
    const database = await createDatabase(user);
    const res = await postView(user, database.id, { view_type: viewType, ...LAYOUT[viewType] });
    expect(res.status).toBe(201);
    const due = database.prop("Due").id;
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      database_id: database.id,
      name: `${viewType[0]?.toUpperCase()}${viewType.slice(1)} view`,
      view_type: viewType,
      date_property: viewType === "calendar" ? due : null,
      start_date_property: viewType === "timeline" ? due : null,
      end_date_property: null,
      timeline_scale: viewType === "timeline" ? "week" : null,
      filters: [],
      sorts: [],
      visible_properties: null,
      position: null,
      created_by: user.id,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(await storedView(res.body.id)).toEqual(res.body);
    expect((await getView(user, res.body.id)).body).toEqual(res.body);
  });

  it.each(["gantt", "kanban", "Table", "TIMELINE", ""])(
    "400 for the view_type %j, storing nothing",
    async (viewType) => {
      const user = await createUser();
      const database = await createDatabase(user);
      const res = await postView(user, database.id, { view_type: viewType });
      expectErrorBody(res, 400);
      expect(issuePaths(res.body)).toContain("view_type");
      expect(await storedViewsOf(database.id)).toEqual([]);
    },
  );

  it("stores filters, sorts and visible properties with canonical ids", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const view = await createView(user, database.id, {
      view_type: "board",
      name: "  My board  ",
      filters: [
        { property: "Status", operator: "equals", value: "Todo" },
        { property: "tags", operator: "contains", value: "Art" },
        { property: database.prop("Priority").id, operator: "greater_than", value: 1 },
      ],
      sorts: [{ property: "Priority", direction: "desc" }, { property: "title" }],
      visible_properties: ["title", "Status", database.prop("Due").id],
      position: 2.5,
    });
    const p = (name: string) => database.prop(name).id;
    const expected = {
      name: "My board",
      filters: [
        { property: p("Status"), operator: "equals", value: "Todo" },
        { property: p("Tags"), operator: "contains", value: "Art" },
        { property: p("Priority"), operator: "greater_than", value: 1 },
      ],
      sorts: [
        { property: p("Priority"), direction: "desc" },
        { property: p("title"), direction: "asc" },
      ],
      visible_properties: [p("title"), p("Status"), p("Due")],
      position: 2.5,
    };
    expect(view).toMatchObject(expected);
    expect(await storedView(view.id)).toMatchObject(expected);
  });

  describe("calendar views", () => {
    it("take date_property by id or name, stored as the id; a created_time property works too", async () => {
      const user = await createUser();
      const database = await createDatabase(user);
      const byId = await createView(user, database.id, {
        view_type: "calendar",
        date_property: database.prop("Due").id,
      });
      expect(byId.date_property).toBe(database.prop("Due").id);
      const created = await createView(user, database.id, { view_type: "calendar", date_property: "created_time" });
      expect((await storedView(created.id))?.date_property).toBe(database.prop("created_time").id);
    });

    it.each([
      ["without date_property", {}, { field: "date_property" }],
      ["with date_property null", { date_property: null }, { field: "date_property" }],
      ["with a text property", { date_property: "Notes" }, { field: "date_property", type: "text" }],
      ["with a select property", { date_property: "Status" }, { field: "date_property", type: "select" }],
      ["with a property that does not exist", { date_property: "Deadline" }, { field: "date_property" }],
      ["with timeline fields", { date_property: "Due", timeline_scale: "day" }, { field: "timeline_scale" }],
    ])("400 %s, storing nothing", async (_case, fields, details) => {
      const user = await createUser();
      const database = await createDatabase(user);
      const res = await postView(user, database.id, { view_type: "calendar", ...fields });
      expectErrorBody(res, 400);
      expect(res.body).toMatchObject({ details });
      expect(await storedViewsOf(database.id)).toEqual([]);
    });
  });

  describe("timeline views", () => {
    it("store start, end and scale", async () => {
      const user = await createUser();
      const database = await createDatabase(user, {
        properties: [
          { name: "Start", type: "date" },
          { name: "End", type: "date" },
        ],
      });
      const view = await createView(user, database.id, {
        view_type: "timeline",
        start_date_property: "Start",
        end_date_property: "End",
        timeline_scale: "month",
      });
      const expected = {
        start_date_property: database.prop("Start").id,
        end_date_property: database.prop("End").id,
        timeline_scale: "month",
        date_property: null,
      };
      expect(view).toMatchObject(expected);
      expect(await storedView(view.id)).toMatchObject(expected);
    });

    it.each(["day", "week", "month"])("accept the scale %s", async (scale) => {
      const user = await createUser();
      const database = await createDatabase(user);
      const view = await createView(user, database.id, {
        view_type: "timeline",
        start_date_property: "Due",
        timeline_scale: scale,
      });
      expect(view.timeline_scale).toBe(scale);
    });

    it.each([
      ["without start_date_property", { end_date_property: "Due" }, { field: "start_date_property" }],
      ["with a text start", { start_date_property: "Notes" }, { field: "start_date_property", type: "text" }],
      [
        "with a checkbox end",
        { start_date_property: "Due", end_date_property: "Urgent" },
        { field: "end_date_property" },
      ],
      [
        "with an unknown end",
        { start_date_property: "Due", end_date_property: "Finish" },
        { field: "end_date_property" },
      ],
      ["with a calendar field", { start_date_property: "Due", date_property: "Due" }, { field: "date_property" }],
    ])("400 %s, storing nothing", async (_case, fields, details) => {
      const user = await createUser();
      const database = await createDatabase(user);
      const res = await postView(user, database.id, { view_type: "timeline", ...fields });
      expectErrorBody(res, 400);
      expect(res.body).toMatchObject({ details });
      expect(await storedViewsOf(database.id)).toEqual([]);
    });

    it("400 for a timeline_scale outside day, week, month", async () => {
      const user = await createUser();
      const database = await createDatabase(user);
      const res = await postView(user, database.id, {
        view_type: "timeline",
        start_date_property: "Due",
        timeline_scale: "year",
      });
      expectErrorBody(res, 400);
      expect(issuePaths(res.body)).toContain("timeline_scale");
      expect(await storedViewsOf(database.id)).toEqual([]);
    });
  });

  it.each([
    ["a date_property on a table", { view_type: "table", date_property: "Due" }, { field: "date_property" }],
    [
      "a start_date_property on a board",
      { view_type: "board", start_date_property: "Due" },
      { field: "start_date_property" },
    ],
    [
      "a filter on an unknown property",
      { view_type: "table", filters: [{ property: "Colour", operator: "equals", value: "x" }] },
      { path: "filters[0].property" },
    ],
    [
      "a filter operator that does not fit",
      { view_type: "table", filters: [{ property: "Status", operator: "greater_than", value: 1 }] },
      { path: "filters[0].operator" },
    ],
    [
      "a filter on an unknown option",
      { view_type: "table", filters: [{ property: "Status", operator: "equals", value: "todo" }] },
      { allowed: ["Todo", "Doing", "Done"] },
    ],
    [
      "a sort on an unknown property",
      { view_type: "list", sorts: [{ property: "Colour" }] },
      { path: "sorts[0].property" },
    ],
    [
      "an unknown visible property",
      { view_type: "gallery", visible_properties: ["title", "Colour"] },
      { field: "visible_properties[1]" },
    ],
  ])("400 for %s, storing nothing", async (_case, body, details) => {
    const user = await createUser();
    const database = await createDatabase(user);
    const res = await postView(user, database.id, body);
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details });
    expect(await storedViewsOf(database.id)).toEqual([]);
  });

  it.each([
    ["no view_type", { name: "x" }, "view_type"],
    ["an unknown field", { view_type: "table", layout: "grid" }, ""],
    ["an empty name", { view_type: "table", name: " " }, "name"],
    [
      "an unknown filter operator",
      { view_type: "table", filters: [{ property: "Status", operator: "like" }] },
      "filters.0.operator",
    ],
    ["visible_properties as a string", { view_type: "table", visible_properties: "title" }, "visible_properties"],
  ])("400 with validation details for %s, storing nothing", async (_case, body, path) => {
    const user = await createUser();
    const database = await createDatabase(user);
    const res = await postView(user, database.id, body);
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain(path);
    expect(await storedViewsOf(database.id)).toEqual([]);
  });

  it("404 for a page that is not a database, storing nothing", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Page" });
    expectErrorBody(await postView(user, page.id, { view_type: "table" }), 404);
    expect(await storedViewsOf(page.id)).toEqual([]);
  });
});

describe("GET /api/database-views/{database_id}", () => {
  it("lists the database's views by position, then creation", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const other = await createDatabase(user, { properties: [] });
    const late = await createView(user, database.id, { view_type: "table", position: 2 });
    const early = await createView(user, database.id, { view_type: "board", position: 1 });
    const unplaced = await createView(user, database.id, { view_type: "list" });
    await createView(user, other.id, { view_type: "table" });
    const res = await listViews(user, database.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([early, late, unplaced]);
  });

  it("returns an empty list for a database without views, and 404 for a page", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    expect((await listViews(user, database.id)).body).toEqual([]);
    const page = await createPage(user, { title: "Page" });
    expectErrorBody(await listViews(user, page.id), 404);
  });

  it("on a shared database, shows each user their own views and shared ones, not other users'", async () => {
    const [owner, other] = [await createUser(), await createUser()];
    const database = await createDatabase(owner);
    await env.DB.prepare("UPDATE blocks SET created_by = NULL WHERE id = ?").bind(database.id).run();
    const ownerView = await createView(owner, database.id, { view_type: "table", name: "Owner's" });
    const otherView = await createView(other, database.id, { view_type: "board", name: "Other's" });
    await env.DB.prepare(
      "INSERT INTO database_views (id, database_id, name, view_type, created_by) VALUES (?, ?, 'Shared', 'list', NULL)",
    )
      .bind(`shared-${ownerView.id}`, database.id)
      .run();

    expect((await listViews(owner, database.id)).body.map((v) => v.name).sort()).toEqual(["Owner's", "Shared"]);
    expect((await listViews(other, database.id)).body.map((v) => v.name).sort()).toEqual(["Other's", "Shared"]);
    expectErrorBody(await getView(other, ownerView.id), 404);
    expectErrorBody(await getView(owner, otherView.id), 404);
    expect((await getView(other, `shared-${ownerView.id}`)).status).toBe(200);
  });
});

describe("GET /api/database-views/view/{view_id}", () => {
  it("returns one view", async () => {
    const user = await createUser();
    const { id } = await setupViewTarget(user);
    const res = await getView(user, id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(await storedView(id));
  });

  it("404 for a view that does not exist", async () => {
    const user = await createUser();
    expectErrorBody(await getView(user, crypto.randomUUID()), 404);
  });

  it("404 once the database is another user's, even for the view's creator", async () => {
    const [owner, other] = [await createUser(), await createUser()];
    const { id, database } = await setupViewTarget(owner);
    await env.DB.prepare("UPDATE blocks SET created_by = ? WHERE id = ?").bind(other.id, database.id).run();
    expectErrorBody(await getView(owner, id), 404);
  });
});
