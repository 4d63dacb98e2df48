import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { D1_BOOKMARK_HEADER, MAX_BOOKMARK_LENGTH, sessionConstraint } from "../../src/db/sessions";
import { backgroundContext, backgroundUserContext, createContext } from "../../src/lib/context";
import { type ApiResponse, api, createUser } from "../helpers/api";
import { BLOCKS } from "../helpers/blocks";

// Reads from the nearest replica: every request runs its queries in one D1 session, started
// from the bookmark the client sent back, and answers the session's latest bookmark. Locally
// there are no replicas: what is tested is the header flow, its refusals and who is exempt.

/** The shape D1 writes bookmarks in; they sort lexically, oldest first. */
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

const bookmarkOf = (res: ApiResponse) => res.headers.get(D1_BOOKMARK_HEADER);

async function createTitled(user: Awaited<ReturnType<typeof createUser>>, title: string, bookmark?: string) {
  return api<{ id: string }>(BLOCKS, {
    method: "POST",
    auth: user,
    body: { type: "page", properties: { title } },
    headers: bookmark === undefined ? {} : { [D1_BOOKMARK_HEADER]: bookmark },
  });
}

const storedWithTitle = async (userId: string, title: string) =>
  (
    await env.DB.prepare(
      "SELECT count(*) AS n FROM blocks WHERE created_by = ? AND json_extract(properties, '$.title') = ?",
    )
      .bind(userId, title)
      .first<{ n: number }>()
  )?.n;

describe("X-D1-Bookmark: the header flow", () => {
  it("a write answers a bookmark; sent back, a read sees the write and answers a bookmark no older", async () => {
    const user = await createUser();
    const created = await createTitled(user, "Read your writes");
    expect(created.status).toBe(201);
    const written = bookmarkOf(created);
    expect(written).toMatch(BOOKMARK);

    const read = await api<{ id: string }>(`${BLOCKS}/${created.body.id}`, {
      auth: user,
      headers: { [D1_BOOKMARK_HEADER]: written as string },
    });
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(created.body.id);
    const seen = bookmarkOf(read);
    expect(seen).toMatch(BOOKMARK);
    expect((seen as string) >= (written as string)).toBe(true);
    // The session's queries were metered as before.
    expect(read.roundTrips).toBeGreaterThan(0);

    // A later write from the bookmark moves it on.
    const again = await createTitled(user, "Second write", seen as string);
    expect(again.status).toBe(201);
    expect((bookmarkOf(again) as string) >= (seen as string)).toBe(true);
  });

  it("reads without a bookmark work and answer one, with the API key looked up in D1 or remembered", async () => {
    const user = await createUser();
    const first = await api(BLOCKS, { auth: user });
    const second = await api(BLOCKS, { auth: user });
    for (const res of [first, second]) {
      expect(res.status).toBe(200);
      expect(bookmarkOf(res)).toMatch(BOOKMARK);
    }
    // A remembered key is checked by the request's first query (auth/key-liveness.ts): that
    // check runs inside the session too, so the request still answers a bookmark.
    expect(second.headers.get("Server-Timing")).toContain('auth;desc="api key from cache"');
    expect(second.roundTrips).toBeGreaterThan(0);
  });

  it("an empty header counts as none", async () => {
    const user = await createUser();
    const res = await api(BLOCKS, { auth: user, headers: { [D1_BOOKMARK_HEADER]: "" } });
    expect(res.status).toBe(200);
    expect(bookmarkOf(res)).toMatch(BOOKMARK);
  });

  it("error responses carry the bookmark too", async () => {
    const user = await createUser();
    const written = bookmarkOf(await createTitled(user, "Before a miss")) as string;
    const missing = await api(`${BLOCKS}/${crypto.randomUUID()}`, {
      auth: user,
      headers: { [D1_BOOKMARK_HEADER]: written },
    });
    expect(missing.status).toBe(404);
    expect((bookmarkOf(missing) as string) >= written).toBe(true);
  });

  it("a request that makes no query answers the bookmark it was sent, and none when it was sent none", async () => {
    const user = await createUser();
    const written = bookmarkOf(await createTitled(user, "Kept")) as string;
    const echoed = await api("/test", { headers: { [D1_BOOKMARK_HEADER]: written } });
    expect(echoed.status).toBe(200);
    expect(bookmarkOf(echoed)).toBe(written);
    const none = await api("/test");
    expect(none.status).toBe(200);
    expect(bookmarkOf(none)).toBeNull();
  });
});

describe("X-D1-Bookmark: malformed or over-long is a 400 before anything is read or written", () => {
  const MALFORMED: [string, string][] = [
    ["not a bookmark", "not-a-bookmark"],
    ["5 KB of text", "x".repeat(5 * 1024)],
    ["non-ASCII", "00000000-0000000f-00000000-0000000000000000000000000000000é"],
    ["upper-case hex", "00000000-0000000F-00000000-00000000000000000000000000000000"],
    ["a group missing", "00000000-0000000f-00000000"],
    ["a group too many", "00000000-0000000f-00000000-00000000000000000000000000000000-00"],
    ["spaces inside", "00000000 0000000f 00000000 00000000000000000000000000000000"],
    ["a constraint name", "first-primary"],
  ];

  for (const [what, value] of MALFORMED) {
    it(`${what}: 400 validation_failed naming the header; a POST stores nothing`, async () => {
      const user = await createUser();
      const title = `Refused ${crypto.randomUUID()}`;
      const res = await createTitled(user, title, value);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: expect.stringContaining(D1_BOOKMARK_HEADER),
        code: "validation_failed",
        details: { header: D1_BOOKMARK_HEADER },
      });
      // Refused before the route ran: no credential looked up, nothing queried, nothing stored.
      expect(res.roundTrips).toBe(0);
      expect(bookmarkOf(res)).toBeNull();
      expect(res.headers.get("X-Request-Id")).toBeTruthy();
      expect(await storedWithTitle(user.id, title)).toBe(0);

      const read = await api(BLOCKS, { auth: user, headers: { [D1_BOOKMARK_HEADER]: value } });
      expect(read.status).toBe(400);
    });
  }

  it(`longer than ${MAX_BOOKMARK_LENGTH} characters: 400 with the limit in details`, async () => {
    const user = await createUser();
    const title = `Too long ${crypto.randomUUID()}`;
    const res = await createTitled(user, title, "0".repeat(MAX_BOOKMARK_LENGTH + 1));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: "validation_failed",
      details: { header: D1_BOOKMARK_HEADER, max_length: MAX_BOOKMARK_LENGTH },
    });
    expect(await storedWithTitle(user.id, title)).toBe(0);
  });

  it("is refused before authentication, so a request without a credential gets the same 400", async () => {
    const res = await api(BLOCKS, { headers: { [D1_BOOKMARK_HEADER]: "not-a-bookmark" } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_failed", details: { header: D1_BOOKMARK_HEADER } });
  });
});

describe("X-D1-Bookmark: browsers", () => {
  it("is exposed to scripts on success and on the 400, and may be sent cross-origin", async () => {
    const user = await createUser();
    const ok = await api(BLOCKS, { auth: user, headers: { Origin: "https://app.example" } });
    const refused = await api(BLOCKS, {
      auth: user,
      headers: { Origin: "https://app.example", [D1_BOOKMARK_HEADER]: "not-a-bookmark" },
    });
    for (const res of [ok, refused]) {
      expect(res.headers.get("Access-Control-Expose-Headers")).toContain(D1_BOOKMARK_HEADER);
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    }

    const preflight = await api(BLOCKS, {
      method: "OPTIONS",
      headers: {
        Origin: "https://app.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, x-d1-bookmark",
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get("Access-Control-Allow-Headers")?.toLowerCase()).toContain("x-d1-bookmark");
  });

  it("the contract's description explains the header", async () => {
    const res = await api<{ info: { description: string } }>("/documentation/openapi.json");
    expect(res.body.info.description).toContain("X-D1-Bookmark");
  });
});

describe("which session a request starts", () => {
  const bookmark = "00000000-0000000f-00000000-00000000000000000000000000000000";

  it("from the client's bookmark when it sent one; else the primary for writes and any replica for reads", () => {
    for (const method of ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"]) {
      expect(sessionConstraint(method, bookmark), method).toBe(bookmark);
    }
    for (const method of ["GET", "HEAD", "OPTIONS", "get"]) {
      expect(sessionConstraint(method, undefined), method).toBe("first-unconstrained");
      expect(sessionConstraint(method, ""), method).toBe("first-unconstrained");
    }
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      expect(sessionConstraint(method, undefined), method).toBe("first-primary");
    }
  });
});

describe("work with no client keeps the binding itself", () => {
  it("background contexts (Cron, Durable Object alarms) and contexts built without a request use env.DB", async () => {
    const user = await createUser();
    const execution = createExecutionContext();
    expect(backgroundContext(env, execution).d1).toBe(env.DB);
    expect(backgroundUserContext(env, execution, user.id).d1).toBe(env.DB);
    expect(createContext({ env }).d1).toBe(env.DB);
  });
});
