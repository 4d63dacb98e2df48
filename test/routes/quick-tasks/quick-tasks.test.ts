import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { QuickTaskCreated, QuickTaskPreview } from "../../../src/schemas/quick-tasks";
import type { Reminder } from "../../../src/schemas/reminders";
import type { Settings } from "../../../src/schemas/settings";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { expectWrittenTag } from "../../helpers/conditional";
import { addProperty, createDatabase, getSchema, insertLegacyDatabase, PROP_ID } from "../../helpers/databases";
import { createPage } from "../../helpers/pages";

const PREVIEW = "/api/v1/tasks/from-natural-language/preview";
const CREATE = "/api/v1/tasks/from-natural-language";
const BERLIN = { timezone: "Europe/Berlin", reference_at: "2026-03-02T10:00:00+01:00" };

const preview = (user: TestUser, body: unknown, query = "") =>
  api<QuickTaskPreview | QuickTaskCreated>(`${PREVIEW}${query}`, { method: "POST", auth: user, body });
const create = (user: TestUser, body: unknown) => api<QuickTaskCreated>(CREATE, { method: "POST", auth: user, body });

async function created(user: TestUser, body: Record<string, unknown>): Promise<QuickTaskCreated> {
  const res = await create(user, { ...BERLIN, ...body });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const countDatabases = async (userId: string) =>
  (
    await env.DB.prepare("SELECT count(*) AS n FROM blocks WHERE created_by = ? AND type = 'database'")
      .bind(userId)
      .first<{ n: number }>()
  )?.n ?? 0;
const countBlocks = async (userId: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM blocks WHERE created_by = ?").bind(userId).first<{ n: number }>())
    ?.n ?? 0;
const countReminders = async (userId: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM reminders WHERE user_id = ?").bind(userId).first<{ n: number }>())
    ?.n ?? 0;
const settingsOf = async (user: TestUser) => (await api<Settings>("/api/v1/settings", { auth: user })).body;
const patchSettings = (user: TestUser, body: unknown) =>
  api<Settings>("/api/v1/settings", { method: "PATCH", auth: user, body });

describeAuthMatrix({
  name: "POST /api/v1/tasks/from-natural-language/preview",
  method: "POST",
  path: () => PREVIEW,
  body: { text: "Pay rent tomorrow", timezone: "UTC" },
});
describeAuthMatrix({
  name: "POST /api/v1/tasks/from-natural-language",
  method: "POST",
  path: () => CREATE,
  body: { text: "Pay rent tomorrow", timezone: "UTC" },
});

describe("POST /api/v1/tasks/from-natural-language/preview", () => {
  it("parses the issue's example in Berlin and writes nothing, showing the Tasks database to be installed", async () => {
    const user = await createUser();
    const res = await preview(user, { text: "Pay rent tomorrow at 9am, high priority", ...BERLIN });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      created: false,
      skipped_preview: false,
      parser: "local",
      parser_fallback_reason: "No parsing provider: TASK_CAPTURE_PROVIDER is empty",
      parse: {
        title: "Pay rent",
        due_at: "2026-03-03T09:00:00+01:00",
        due_date: null,
        all_day: false,
        priority: "high",
        reminder_offset: null,
        notes: null,
        ambiguities: [],
      },
      target_database: {
        id: null,
        title: "Tasks",
        source: "template",
        installed: false,
        note: null,
        property_mapping: {
          title: { id: null, type: "title" },
          status: { id: null, name: "Status", type: "status" },
          due: { id: null, name: "Due", type: "date" },
          priority: { id: null, name: "Priority", type: "select" },
          notes: { id: null, name: "Notes", type: "text" },
          reminder: { id: null, name: "Reminder", type: "select" },
        },
      },
    });
    expect(await countBlocks(user.id)).toBe(0);
    expect((await settingsOf(user)).updatedAt).toBeNull();
  });

  it("defaults reference_at to now", async () => {
    const user = await createUser();
    const res = await preview(user, { text: "Water the plants in 2 hours", timezone: "UTC" });
    expect(res.status).toBe(200);
    const due = Date.parse(res.body.parse.due_at ?? "");
    expect(Math.abs(due - (Date.now() + 2 * 3_600_000))).toBeLessThan(120_000);
  });

  it("shows the caller's own database with its real property ids when one is named", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { title: "Errands" });
    const res = await preview(user, { text: "Buy milk tomorrow", ...BERLIN, database_id: database.id });
    expect(res.status).toBe(200);
    expect(res.body.target_database).toMatchObject({ id: database.id, title: "Errands", source: "request" });
    expect(res.body.target_database.property_mapping.title?.id).toMatch(PROP_ID);
    expect(await countReminders(user.id)).toBe(0);
  });

  describe("quickTaskSkipPreview", () => {
    it("without the setting, preview=1 still only previews", async () => {
      const user = await createUser();
      const res = await preview(user, { text: "Book flights friday", ...BERLIN }, "?preview=1");
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ created: false, skipped_preview: false });
      expect(await countBlocks(user.id)).toBe(0);
    });

    it.each([
      ["the query", "?preview=1", {}],
      ["the query (true)", "?preview=true", {}],
      ["the body", "", { preview: 1 }],
      ["the body (boolean)", "", { preview: true }],
    ])("with the setting, preview=1 in %s creates at once and says so", async (_where, query, marker) => {
      const user = await createUser();
      expect((await patchSettings(user, { quickTaskSkipPreview: true })).status).toBe(200);
      const res = await preview(user, { text: "Book flights friday", ...BERLIN, ...marker }, query);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ created: true, skipped_preview: true, parse: { title: "Book flights" } });
      const body = res.body as QuickTaskCreated;
      expect(body.task.database_id).toBe(body.target_database.id);
      expect(await countDatabases(user.id)).toBe(1);
    });

    it("with the setting but no marker (or preview=0), previews", async () => {
      const user = await createUser();
      await patchSettings(user, { quickTaskSkipPreview: true });
      for (const [query, marker] of [
        ["", {}],
        ["?preview=0", {}],
        ["", { preview: 0 }],
      ] as const) {
        const res = await preview(user, { text: "Book flights friday", ...BERLIN, ...marker }, query);
        expect(res.status).toBe(200);
        expect(res.body.created).toBe(false);
      }
      expect(await countBlocks(user.id)).toBe(0);
    });
  });
});

describe("POST /api/v1/tasks/from-natural-language", () => {
  it("a 201 carries the new page's ETag, as GET of its Location answers it (RFC 9110 §15.3.2), with or without a reminder", async () => {
    const user = await createUser();
    await patchSettings(user, { quickTaskSkipPreview: true });
    for (const [what, send] of [
      ["create", () => create(user, { text: "Pay rent tomorrow at 9am", ...BERLIN })],
      [
        "create with a reminder",
        () => create(user, { text: "Pay rent tomorrow at 9am, remind me 30 minutes before", ...BERLIN }),
      ],
      [
        "preview=1, skipping the preview",
        () => preview(user, { text: "Book flights friday", ...BERLIN }, "?preview=1"),
      ],
    ] as const) {
      const res = await send();
      expect(res.status, what).toBe(201);
      const location = res.headers.get("Location") ?? "";
      expect(location, what).toBe(`/api/v1/pages/${(res.body as QuickTaskCreated).task.id}`);
      await expectWrittenTag(res, null, () => api(location, { auth: user }));
    }
    // A preview answers a parse, no resource: no tag.
    await patchSettings(user, { quickTaskSkipPreview: false });
    const parsed = await preview(user, { text: "Book flights friday", ...BERLIN }, "?preview=1");
    expect(parsed.status).toBe(200);
    expect(parsed.headers.get("ETag")).toBeNull();
  });

  it("installs the built-in Tasks database on first create and writes the row to its property ids", async () => {
    const user = await createUser();
    const body = await created(user, { text: "Pay rent tomorrow at 9am, high priority -- the landlord's IBAN" });
    const target = body.target_database;
    expect(target).toMatchObject({ title: "Tasks", source: "template", installed: true, note: null });
    const schema = (await getSchema(user, target.id ?? "")).body.properties;
    const byName = (name: string) => schema.find((property) => property.name === name);
    expect(schema.map((property) => [property.name, property.type])).toEqual([
      ["title", "title"],
      ["Status", "status"],
      ["Due", "date"],
      ["Priority", "select"],
      ["Notes", "text"],
      ["Reminder", "select"],
      ["created_time", "created_time"],
      ["created_by", "created_by"],
      ["last_edited_time", "last_edited_time"],
      ["last_edited_by", "last_edited_by"],
    ]);
    expect(byName("Status")?.options.map((option) => option.name)).toEqual(["Todo", "Doing", "Done"]);
    expect(byName("Priority")?.options.map((option) => option.name)).toEqual(["Low", "Medium", "High"]);
    for (const field of ["title", "status", "due", "priority", "notes", "reminder"] as const) {
      expect(target.property_mapping[field]?.id).toMatch(PROP_ID);
    }
    const todo = byName("Status")?.options.find((option) => option.name === "Todo");
    const high = byName("Priority")?.options.find((option) => option.name === "High");
    expect(body.task.type).toBe("database_row");
    expect(body.task.database_id).toBe(target.id);
    expect(body.task.properties).toEqual({
      [byName("title")?.id ?? ""]: "Pay rent",
      [byName("Status")?.id ?? ""]: todo,
      [byName("Due")?.id ?? ""]: { start: "2026-03-03T09:00:00+01:00" },
      [byName("Priority")?.id ?? ""]: high,
      [byName("Notes")?.id ?? ""]: "the landlord's IBAN",
    });
    expect(body.reminder).toBeNull();
    expect((await settingsOf(user)).quickTaskTemplateDatabaseId).toBe(target.id);

    // The next create uses it: nothing installed again.
    const second = await created(user, { text: "Renew passport next month" });
    expect(second.target_database).toMatchObject({ id: target.id, source: "template", installed: false });
    expect(await countDatabases(user.id)).toBe(1);
  });

  it("installs the Tasks database exactly once when first creates race", async () => {
    const user = await createUser();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, index) => created(user, { text: `Task number ${index} tomorrow` })),
    );
    const ids = new Set(results.map((result) => result.target_database.id));
    expect(ids.size).toBe(1);
    expect(results.filter((result) => result.target_database.installed)).toHaveLength(1);
    expect(await countDatabases(user.id)).toBe(1);
    const [databaseId] = [...ids];
    const rows = await env.DB.prepare(
      "SELECT count(*) AS n FROM blocks WHERE database_id = ? AND type = 'database_row'",
    )
      .bind(databaseId ?? "")
      .first<{ n: number }>();
    expect(rows?.n).toBe(6);
    const properties = await env.DB.prepare("SELECT count(*) AS n FROM database_properties WHERE database_id = ?")
      .bind(databaseId ?? "")
      .first<{ n: number }>();
    expect(properties?.n).toBe(10);
  });

  it("installs a new Tasks database when the old one is in the trash", async () => {
    const user = await createUser();
    const first = await created(user, { text: "First task" });
    await api(`/api/v1/blocks/${first.target_database.id}`, { method: "PATCH", auth: user, body: { in_trash: true } });
    const second = await created(user, { text: "Second task" });
    expect(second.target_database).toMatchObject({ source: "template", installed: true });
    expect(second.target_database.id).not.toBe(first.target_database.id);
    expect((await settingsOf(user)).quickTaskTemplateDatabaseId).toBe(second.target_database.id);
  });

  describe("target database resolution", () => {
    it("takes the request's database_id, else the saved default, else the built-in Tasks database", async () => {
      const user = await createUser();
      const saved = await createDatabase(user, { title: "Saved", properties: [] });
      const named = await createDatabase(user, { title: "Named", properties: [] });
      expect((await patchSettings(user, { quickTaskDatabaseId: saved.id })).status).toBe(200);

      const fromRequest = await created(user, { text: "One", database_id: named.id });
      expect(fromRequest.target_database).toMatchObject({ id: named.id, title: "Named", source: "request" });
      expect(fromRequest.task.database_id).toBe(named.id);

      const fromSettings = await created(user, { text: "Two" });
      expect(fromSettings.target_database).toMatchObject({ id: saved.id, title: "Saved", source: "settings" });

      await patchSettings(user, { quickTaskDatabaseId: null });
      const fromTemplate = await created(user, { text: "Three" });
      expect(fromTemplate.target_database).toMatchObject({ source: "template", installed: true, title: "Tasks" });
    });

    it("falls back to the Tasks database, saying why, when the saved default is gone", async () => {
      const user = await createUser();
      const saved = await createDatabase(user, { title: "Saved", properties: [] });
      await patchSettings(user, { quickTaskDatabaseId: saved.id });
      await api(`/api/v1/blocks/${saved.id}`, { method: "PATCH", auth: user, body: { in_trash: true } });
      const body = await created(user, { text: "Somewhere safe" });
      expect(body.target_database).toMatchObject({ source: "template", installed: true });
      expect(body.target_database.note).toContain(saved.id);
    });

    it("404 for a database_id the caller cannot use, writing nothing", async () => {
      const user = await createUser();
      const other = await createUser();
      const theirs = await createDatabase(other, { properties: [] });
      const page = await createPage(user, { title: "A page" });
      const trashed = await createDatabase(user, { properties: [] });
      await api(`/api/v1/blocks/${trashed.id}`, { method: "PATCH", auth: user, body: { in_trash: true } });
      const before = await countBlocks(user.id);
      for (const id of [theirs.id, page.id, trashed.id, crypto.randomUUID()]) {
        for (const send of [create, preview]) {
          const res = await send(user, { text: "Nope", ...BERLIN, database_id: id });
          expectErrorBody(res, 404);
          expect(res.body).toMatchObject({ details: { field: "database_id", database_id: id } });
        }
      }
      expect(await countBlocks(user.id)).toBe(before);
      expect(await countBlocks(other.id)).toBe(1);
      expect(await countReminders(user.id)).toBe(0);
    });
  });

  describe("values the database cannot hold", () => {
    it("reports a priority the database has no option for, and leaves it out", async () => {
      const user = await createUser();
      const database = await createDatabase(user, {
        title: "Work",
        properties: [
          { name: "State", type: "status", options: [{ name: "Not started" }, { name: "Finished" }] },
          { name: "Deadline", type: "date" },
          { name: "Priority", type: "select", options: [{ name: "P2" }, { name: "P3" }] },
        ],
      });
      const body = await created(user, { text: "Ship the release tomorrow, urgent", database_id: database.id });
      const mapping = body.target_database.property_mapping;
      expect(mapping.status).toMatchObject({ name: "State", type: "status" });
      expect(mapping.due).toMatchObject({ name: "Deadline", type: "date" });
      expect(mapping.priority).toMatchObject({ name: "Priority", type: "select" });
      expect(mapping.notes).toBeNull();
      expect(mapping.reminder).toBeNull();
      expect(body.parse.priority).toBe("high");
      expect(body.parse.ambiguities).toContainEqual({
        field: "priority",
        text: "'High' is not an option of Priority: left out",
        alternatives: ["P2", "P3"],
      });
      const properties = body.task.properties;
      expect(properties[mapping.priority?.id ?? ""]).toBeUndefined();
      expect(properties[mapping.due?.id ?? ""]).toEqual({ start: "2026-03-03" });
      expect(properties[mapping.status?.id ?? ""]).toMatchObject({ name: "Not started" });
      // The option was not invented.
      const schema = (await getSchema(user, database.id)).body.properties;
      expect(schema.find((property) => property.name === "Priority")?.options.map((option) => option.name)).toEqual([
        "P2",
        "P3",
      ]);
    });

    it("matches options ignoring case and decoration, and puts notes in the body without a notes property", async () => {
      const user = await createUser();
      const database = await createDatabase(user, {
        properties: [{ name: "priority", type: "select", options: [{ name: "🔴 high" }, { name: "low" }] }],
      });
      const body = await created(user, { text: "Fix the roof p1 -- call Sam first", database_id: database.id });
      const priority = body.target_database.property_mapping.priority;
      expect(body.task.properties[priority?.id ?? ""]).toMatchObject({ name: "🔴 high" });
      expect(body.task.content).toEqual([{ type: "paragraph", children: [{ text: "call Sam first" }] }]);
      expect(body.parse.ambiguities).toEqual([]);
    });

    it("reports a due date the database has no date property for", async () => {
      const user = await createUser();
      const database = await createDatabase(user, { properties: [] });
      const body = await created(user, {
        text: "Dentist tomorrow at 3pm remind me 1 hour before",
        database_id: database.id,
      });
      expect(body.parse.ambiguities).toContainEqual({
        field: "due",
        text: "The database has no due property for '2026-03-03T15:00:00+01:00': left out",
        alternatives: [],
      });
      expect(body.reminder).toBeNull();
      expect(await countReminders(user.id)).toBe(0);
    });
  });

  describe("reminders", () => {
    it("puts the offset in the date value and makes the reminder record in the same write", async () => {
      const user = await createUser();
      const body = await created(user, { text: "Call mom tomorrow at 6pm, remind me 30 minutes before" });
      const mapping = body.target_database.property_mapping;
      const due = body.task.properties[mapping.due?.id ?? ""] as {
        start: string;
        reminder: string;
        reminder_schedules: { id: string; offset: string }[];
      };
      expect(due).toMatchObject({ start: "2026-03-03T18:00:00+01:00", reminder: "30_minutes_before" });
      const [schedule] = due.reminder_schedules;
      expect(schedule).toMatchObject({ offset: "30_minutes_before" });
      expect(body.reminder).toMatchObject({
        target_block_id: body.task.id,
        source_property_id: mapping.due?.id,
        remind_at: "2026-03-03T16:30:00.000Z",
        timezone: "Europe/Berlin",
        channel: "push",
        metadata: {
          version: 1,
          source: "database_date_property",
          schedule_id: schedule?.id,
          reminder_offset: "30_minutes_before",
        },
      });
      const reminderOption = body.task.properties[mapping.reminder?.id ?? ""];
      expect(reminderOption).toMatchObject({ name: "30 minutes before" });
      const listed = await api<Reminder[]>(`/api/v1/reminders?target_block_id=${body.task.id}`, { auth: user });
      expect(listed.body.map((reminder) => reminder.id)).toEqual([body.reminder?.id]);
    });

    it("counts an all-day task's reminder back from 09:00 of its day, on the local clock", async () => {
      const user = await createUser();
      // 2026-03-29 is the day Europe/Berlin moves to summer time: the day before is still +01:00.
      const body = await created(user, {
        text: "Submit the tax return on march 29 remind me 1 day before",
        timezone: "Europe/Berlin",
        reference_at: "2026-03-20T12:00:00+01:00",
      });
      expect(body.parse).toMatchObject({ due_date: "2026-03-29", all_day: true, reminder_offset: "1_day_before" });
      expect(body.reminder).toMatchObject({
        remind_at: "2026-03-28T08:00:00.000Z",
        metadata: { reminder_time: "09:00", reminder_offset: "1_day_before" },
      });
    });

    it("makes no reminder for an offset without a due date, and says so", async () => {
      const user = await createUser();
      const body = await created(user, { text: "Stretch, remind me 10 minutes before" });
      expect(body.reminder).toBeNull();
      expect(body.parse.ambiguities).toContainEqual({
        field: "reminder_offset",
        text: "A reminder without a due date: no reminder made",
        alternatives: [],
      });
      expect(await countReminders(user.id)).toBe(0);
    });
  });

  describe("bad input", () => {
    it.each([
      ["no text", { timezone: "UTC" }],
      ["empty text", { text: "", timezone: "UTC" }],
      ["blank text", { text: "   ", timezone: "UTC" }],
      ["text over 2,000 characters", { text: "a".repeat(2001), timezone: "UTC" }],
      ["text that is not a string", { text: 42, timezone: "UTC" }],
      ["no timezone", { text: "Pay rent" }],
      ["a timezone that is not IANA", { text: "Pay rent", timezone: "Mars/Olympus_Mons" }],
      ["an offset for a timezone", { text: "Pay rent", timezone: "+01:00" }],
      ["a reference_at without an offset", { text: "Pay rent", timezone: "UTC", reference_at: "2026-03-02T10:00:00" }],
      ["a reference_at that is not a date", { text: "Pay rent", timezone: "UTC", reference_at: "tomorrow" }],
      ["an empty database_id", { text: "Pay rent", timezone: "UTC", database_id: "" }],
      ["an unknown field", { text: "Pay rent", timezone: "UTC", priority: "high" }],
    ])("400 for %s, writing nothing", async (_name, body) => {
      const user = await createUser();
      for (const send of [create, preview]) {
        const res = await send(user, body);
        expectErrorBody(res, 400);
        expect(res.body).toHaveProperty("details");
      }
      expect(await countBlocks(user.id)).toBe(0);
    });

    it("accepts text of exactly 2,000 characters", async () => {
      const user = await createUser();
      const res = await preview(user, { text: "a".repeat(2000), timezone: "UTC" });
      expect(res.status).toBe(200);
    });

    it("400 for a preview marker that is not 0 or 1", async () => {
      const user = await createUser();
      expectErrorBody(await preview(user, { text: "Pay rent", timezone: "UTC", preview: "yes" }), 400);
      expectErrorBody(await preview(user, { text: "Pay rent", timezone: "UTC" }, "?preview=2"), 400);
    });
  });
});

describe("adding a Reminder property later", () => {
  it("writes the reminder label to a text property named Reminder", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [{ name: "Due date", type: "date" }] });
    await addProperty(user, database.id, { name: "Reminder", type: "text" });
    const body = await created(user, {
      text: "Standup tomorrow 9:30am remind me 5 minutes before",
      database_id: database.id,
    });
    const mapping = body.target_database.property_mapping;
    expect(mapping.due).toMatchObject({ name: "Due date" });
    expect(body.task.properties[mapping.reminder?.id ?? ""]).toBe("5 minutes before");
    expect(body.reminder?.remind_at).toBe("2026-03-03T08:25:00.000Z");
  });
});

describe("an older database with an inline schema", () => {
  it("takes the task but makes no reminder (a reminder's source must be a schema record), and says so", async () => {
    const user = await createUser();
    const databaseId = await insertLegacyDatabase(user.id, [
      { id: "name", name: "Name", type: "title" },
      { id: "due", name: "Due", type: "date" },
    ]);
    const body = await created(user, {
      text: "Pay rent tomorrow at 9am, remind me 30 minutes before",
      database_id: databaseId,
    });
    expect(body.target_database.property_mapping.due).toEqual({ id: "due", name: "Due", type: "date" });
    expect(body.task.properties).toMatchObject({ name: "Pay rent", due: { start: "2026-03-03T09:00:00+01:00" } });
    expect(body.reminder).toBeNull();
    expect(body.parse.ambiguities.map((ambiguity) => ambiguity.field)).toContain("reminder_offset");
    expect(await countReminders(user.id)).toBe(0);
  });
});

describe("a date property removed while the task is written", () => {
  it("never leaves a row without the reminder it asked for", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [{ name: "Due", type: "date" }] });
    const dueId = (await getSchema(user, database.id)).body.properties.find((property) => property.name === "Due")?.id;
    const [task] = await Promise.all([
      create(user, { ...BERLIN, text: "Race tomorrow at 9am remind me 5 minutes before", database_id: database.id }),
      api(`/api/v1/databases/${database.id}/properties/${dueId}`, { method: "DELETE", auth: user }),
    ]);
    const rows = await env.DB.prepare("SELECT id FROM blocks WHERE database_id = ? AND type = 'database_row'")
      .bind(database.id)
      .all<{ id: string }>();
    const reminders = await countReminders(user.id);
    if (task.status === 201) {
      // Written before the removal: the row and its reminder both exist.
      expect(rows.results).toHaveLength(1);
      expect(reminders).toBe(task.body.reminder ? 1 : 0);
    } else {
      expect(rows.results).toHaveLength(0);
      expect(reminders).toBe(0);
    }
  });
});

describe("edges", () => {
  it.each([
    ["at the time", "Standup tomorrow at 9am, remind me at the time"],
    ["when it is due", "Standup tomorrow at 9am, remind me when it's due"],
  ])("reminds %s: at the due time itself", async (_name, text) => {
    const user = await createUser();
    const body = await created(user, { text });
    expect(body.parse.reminder_offset).toBe("at_time");
    expect(body.reminder?.remind_at).toBe("2026-03-03T08:00:00.000Z");
    const mapping = body.target_database.property_mapping;
    expect(body.task.properties[mapping.reminder?.id ?? ""]).toMatchObject({ name: "At time" });
  });

  it("reports a title the database has no title property for", async () => {
    const user = await createUser();
    const databaseId = await insertLegacyDatabase(user.id, [{ id: "due", name: "Due", type: "date" }]);
    const body = await created(user, { text: "Renew the lease tomorrow", database_id: databaseId });
    expect(body.target_database.property_mapping.title).toBeNull();
    expect(body.parse.ambiguities).toContainEqual({
      field: "title",
      text: "The database has no title property for 'Renew the lease': left out",
      alternatives: [],
    });
  });

  it("takes the due date from the only date property even when it is named Reminder", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [{ name: "Reminder", type: "date" }] });
    const body = await created(user, { text: "Water the plants tomorrow", database_id: database.id });
    expect(body.target_database.property_mapping).toMatchObject({ due: { name: "Reminder" }, reminder: null });
    expect(body.task.properties[body.target_database.property_mapping.due?.id ?? ""]).toEqual({ start: "2026-03-03" });
  });

  it("with two date properties, takes the one named like a due date and writes the reminder instant to Reminder", async () => {
    const user = await createUser();
    const database = await createDatabase(user, {
      properties: [
        { name: "Reminder", type: "date" },
        { name: "Deadline", type: "date" },
      ],
    });
    const body = await created(user, {
      text: "File taxes tomorrow at 5pm remind me 2 hours before",
      database_id: database.id,
    });
    const mapping = body.target_database.property_mapping;
    expect(mapping).toMatchObject({ due: { name: "Deadline" }, reminder: { name: "Reminder", type: "date" } });
    expect(body.task.properties[mapping.reminder?.id ?? ""]).toEqual({ start: "2026-03-03T15:00:00+01:00" });
    expect(body.reminder?.source_property_id).toBe(mapping.due?.id);
  });

  it("never takes a negated option ('Not high') for a priority", async () => {
    const user = await createUser();
    const database = await createDatabase(user, {
      properties: [{ name: "Priority", type: "select", options: [{ name: "Not high" }, { name: "Highlight" }] }],
    });
    const body = await created(user, { text: "Tidy the desk, high priority", database_id: database.id });
    expect(body.task.properties[body.target_database.property_mapping.priority?.id ?? ""]).toBeUndefined();
    expect(body.parse.ambiguities.map((ambiguity) => ambiguity.field)).toContain("priority");
  });

  it("accepts a time zone in any case and reads dates in it", async () => {
    const user = await createUser();
    const res = await preview(user, { ...BERLIN, timezone: "europe/berlin", text: "Pay rent tomorrow at 9am" });
    expect(res.status).toBe(200);
    expect(res.body.parse.due_at).toBe("2026-03-03T09:00:00+01:00");
  });

  it("takes text that is all date and priority as its own title", async () => {
    const user = await createUser();
    const body = await created(user, { text: "tomorrow 9am urgent -- the usual" });
    expect(body.parse).toMatchObject({ title: "tomorrow 9am urgent", notes: "the usual", priority: "high" });
    expect(body.task.properties[body.target_database.property_mapping.title?.id ?? ""]).toBe("tomorrow 9am urgent");
  });
});
