import { describe, expect, it } from "vitest";
import { DEVELOPMENT_VAPID_PUBLIC_KEY } from "../../src/services/push/config";
import { type ApiResponse, api, createUser, type TestUser } from "../helpers/api";
import { createBlock } from "../helpers/blocks";
import { contractOperations } from "../helpers/contract";
import { sessionOf } from "../helpers/cursor-matrix";
import { createDatabase, DATABASES } from "../helpers/databases";
import { FakePushService } from "../helpers/fake-push-service";
import { uploadMedia } from "../helpers/media";
import { createPage } from "../helpers/pages";
import { reminderBody, reminderTarget } from "../helpers/reminders";
import { receiverUrl, WEBHOOKS } from "../helpers/webhooks";

// Every 201 carries Location (RFC 9110 §15.3.2), an absolute path (§10.2.2) to where the new
// resource is read, and the ETag a read of it answers: one case per creating operation of the
// contract, and the list of cases is the contract's list of operations answering 201.

interface Created {
  /** What the contract names the operation: `METHOD /path`. */
  operation: string;
  /** Makes the request whose answer is the 201. */
  create: (user: TestUser) => Promise<ApiResponse<Record<string, unknown>>>;
  /** The Location it must carry, from its answer. */
  location: (body: Record<string, unknown>, user: TestUser) => string;
  /** Whether a GET of the Location reads the resource back (the id in its answer); else the URL only names it (PATCH, DELETE). */
  readable: boolean;
}

const post = (path: string, user: TestUser | string, body: unknown) =>
  api<Record<string, unknown>>(path, { method: "POST", auth: user, body });
const id = (body: Record<string, unknown>) => String(body.id);
/** Creations that need more than the user: made per user, before the request, and kept for `location`. */
const arranged = new Map<string, Record<string, string>>();
const of = (user: TestUser) => arranged.get(user.id) ?? {};

async function databaseWithStatus(user: TestUser) {
  const database = await createDatabase(user);
  const status = database.prop("Status");
  arranged.set(user.id, { database: database.id, property: status.id });
  return { database: database.id, property: status.id };
}

const CASES: Created[] = [
  {
    operation: "POST /api/v1/blocks",
    create: (user) => post("/api/v1/blocks", user, { type: "paragraph" }),
    location: (body) => `/api/v1/blocks/${id(body)}`,
    readable: true,
  },
  {
    operation: "POST /api/blocks",
    create: (user) => post("/api/blocks", user, { type: "paragraph" }),
    location: (body) => `/api/v1/blocks/${id(body)}`,
    readable: true,
  },
  {
    operation: "POST /api/v1/blocks/{id}/duplicate",
    create: async (user) =>
      post(`/api/v1/blocks/${(await createBlock(user, { type: "paragraph" })).id}/duplicate`, user, {}),
    location: (body) => `/api/v1/blocks/${id(body)}`,
    readable: true,
  },
  {
    operation: "POST /api/v1/pages",
    create: (user) => post("/api/v1/pages", user, { title: "Plan" }),
    location: (body) => `/api/v1/pages/${id(body)}`,
    readable: true,
  },
  {
    operation: "POST /api/pages",
    create: (user) => post("/api/pages", user, { title: "Plan" }),
    location: (body) => `/api/v1/pages/${id(body)}`,
    readable: true,
  },
  {
    operation: "POST /api/v1/databases/{id}/properties",
    create: async (user) =>
      post(`${DATABASES}/${(await databaseWithStatus(user)).database}/properties`, user, {
        name: "Estimate",
        type: "number",
      }),
    location: (body, user) => `${DATABASES}/${of(user).database}/properties/${id(body)}`,
    readable: false,
  },
  {
    operation: "POST /api/v1/databases/{id}/properties/{property_id}/options",
    create: async (user) => {
      const { database, property } = await databaseWithStatus(user);
      return post(`${DATABASES}/${database}/properties/${property}/options`, user, { name: "Blocked" });
    },
    location: (body, user) => `${DATABASES}/${of(user).database}/properties/${of(user).property}/options/${id(body)}`,
    readable: false,
  },
  {
    operation: "POST /api/v1/databases/{id}/rows/batch",
    create: async (user) =>
      post(`${DATABASES}/${(await databaseWithStatus(user)).database}/rows/batch`, user, {
        rows: [{ title: "One" }, { title: "Two" }],
      }),
    // Many rows, no one of them the resource: the listing of the database's rows, where they are read.
    location: (_body, user) => `/api/v1/blocks?database_id=${of(user).database}`,
    readable: true,
  },
  {
    operation: "POST /api/database-views/{database_id}",
    create: async (user) =>
      post(`/api/database-views/${(await databaseWithStatus(user)).database}`, user, {
        view_type: "table",
        name: "All",
      }),
    location: (body) => `/api/database-views/view/${id(body)}`,
    readable: true,
  },
  {
    operation: "POST /api/v1/mentions",
    create: async (user) =>
      post("/api/v1/mentions", user, {
        block_id: (await createPage(user)).id,
        target_type: "date",
        target_id: "2027-01-01",
      }),
    location: (body) => `/api/v1/mentions/${id(body)}`,
    readable: false,
  },
  {
    operation: "POST /api/v1/comments",
    create: async (user) => post("/api/v1/comments", user, { block_id: (await createPage(user)).id, content: "Ship?" }),
    location: (body) => `/api/v1/comments/${id(body)}`,
    readable: false,
  },
  {
    operation: "POST /api/v1/synced-blocks",
    create: async (user) =>
      post("/api/v1/synced-blocks", user, {
        source_block_id: (await createBlock(user, { type: "paragraph" })).id,
        instance_block_id: (await createBlock(user, { type: "paragraph" })).id,
      }),
    location: (body) => `/api/v1/synced-blocks/instance/${String(body.instance_block_id)}`,
    readable: true,
  },
  {
    operation: "POST /api/v1/media/upload",
    create: (user) => uploadMedia(user) as Promise<ApiResponse<Record<string, unknown>>>,
    // The file's record: its metadata is where it is read (the bytes come through its signed URL).
    location: (body) => `/api/v1/media/${id(body)}/metadata`,
    readable: true,
  },
  {
    operation: "POST /api/v1/push-subscriptions",
    create: async (user) =>
      post("/api/v1/push-subscriptions", user, {
        ...(await new FakePushService({ vapidPublicKey: DEVELOPMENT_VAPID_PUBLIC_KEY }).subscribe()),
      }),
    location: (body) => `/api/v1/push-subscriptions/${id(body)}`,
    readable: false,
  },
  {
    operation: "POST /api/v1/reminders",
    create: async (user) =>
      post("/api/v1/reminders", user, reminderBody(await reminderTarget(user), "2030-01-01T09:00:00Z")),
    location: (body) => `/api/v1/reminders/${id(body)}`,
    readable: true,
  },
  {
    operation: "POST /api/v1/tasks/from-natural-language",
    create: (user) =>
      post("/api/v1/tasks/from-natural-language", user, { text: "Book flights friday", timezone: "UTC" }),
    location: (body) => `/api/v1/pages/${String((body.task as { id: string }).id)}`,
    readable: true,
  },
  {
    operation: "POST /api/v1/tasks/from-natural-language/preview",
    create: async (user) => {
      await api("/api/v1/settings", { method: "PATCH", auth: user, body: { quickTaskSkipPreview: true } });
      return post("/api/v1/tasks/from-natural-language/preview?preview=1", user, {
        text: "Book flights",
        timezone: "UTC",
      });
    },
    location: (body) => `/api/v1/pages/${String((body.task as { id: string }).id)}`,
    readable: true,
  },
  {
    operation: "POST /api/v1/webhooks",
    create: async (user) => post(WEBHOOKS, user, { url: receiverUrl() }),
    location: (body) => `${WEBHOOKS}/${id(body)}`,
    readable: true,
  },
  {
    operation: "POST /api/v1/api-keys",
    create: async (user) => post("/api/v1/api-keys", await sessionOf(user), { name: "agent" }),
    location: (body) => `/api/v1/api-keys/${id(body)}`,
    readable: false,
  },
];

const creating = (await contractOperations()).filter(({ operation }) => operation.responses["201"]);

describe("Location on every 201", () => {
  it("the cases are the contract's operations answering 201, each declaring Location", () => {
    expect(CASES.map(({ operation }) => operation).sort()).toEqual(creating.map(({ name }) => name).sort());
    for (const { name, operation } of creating) {
      expect(operation.responses["201"]?.headers?.Location?.description, name).toMatch(
        /^Where the new resource is read/,
      );
    }
  });

  it.each(CASES.map((created) => [created.operation, created] as const))("%s", async (_name, created) => {
    const user = await createUser();
    const res = await created.create(user);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const location = res.headers.get("Location");
    expect(location).toBe(created.location(res.body, user));
    if (!created.readable) return;
    const read = await api<Record<string, unknown>>(location ?? "", { auth: user });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    if (!Array.isArray(read.body) && "id" in res.body) expect(read.body.id).toBe(res.body.id);
    // A 201's validators are the new resource's (§15.3.2): its ETag is the one a read of the Location
    // answers, and the contract declares it where it is sent.
    expect(res.headers.get("ETag"), "ETag").toBe(read.headers.get("ETag"));
    const declared = creating.find(({ name }) => name === created.operation)?.operation.responses["201"]?.headers;
    expect(declared?.ETag !== undefined, "ETag declared").toBe(res.headers.has("ETag"));
  });
});
