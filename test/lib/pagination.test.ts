import { describe, expect, it } from "vitest";
import { PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT } from "../../src/lib/pagination";
import { type ApiResponse, api, createUser, type TestUser } from "../helpers/api";
import { expectErrorBody } from "../helpers/auth-matrix";
import { createDatabase } from "../helpers/databases";

/** Every paginated listing, each asked for one window of the same caller's data. */
function listings(user: TestUser, databaseId: string) {
  return {
    blocks: (window: Record<string, number>) =>
      api(`/api/v1/blocks?${new URLSearchParams(Object.entries(window).map(([k, v]) => [k, String(v)]))}`, {
        auth: user,
      }),
    pages: (window: Record<string, number>) =>
      api(`/api/v1/pages?${new URLSearchParams(Object.entries(window).map(([k, v]) => [k, String(v)]))}`, {
        auth: user,
      }),
    rows: (window: Record<string, number>) =>
      api(`/api/v1/databases/${databaseId}/query`, { method: "POST", auth: user, body: window }),
    views: (window: Record<string, number>) =>
      api(
        `/api/database-views/${databaseId}?${new URLSearchParams(Object.entries(window).map(([k, v]) => [k, String(v)]))}`,
        { auth: user },
      ),
  };
}

const windowOf = (res: ApiResponse) => ({
  limit: res.headers.get("X-Pagination-Limit"),
  offset: res.headers.get("X-Pagination-Offset"),
  hasMore: res.headers.get("X-Has-More"),
  total: res.headers.get("X-Total-Count"),
});

describe("one listing behaviour everywhere", async () => {
  const user = await createUser();
  const database = await createDatabase(user);
  const all = listings(user, database.id);

  it.each(Object.keys(all))("%s: limit above the maximum is lowered to it, and said so", async (name) => {
    const res = await all[name as keyof typeof all]({ limit: PAGE_MAX_LIMIT + 1 });
    expect(res.status).toBe(200);
    expect(windowOf(res)).toMatchObject({ limit: String(PAGE_MAX_LIMIT), offset: "0", hasMore: "false" });
    expect(res.headers.get("X-Total-Count")).toMatch(/^\d+$/);
  });

  it.each(Object.keys(all))("%s: the default window, and the same refusals of a bad one", async (name) => {
    const list = all[name as keyof typeof all];
    expect(windowOf(await list({}))).toMatchObject({ limit: String(PAGE_DEFAULT_LIMIT), offset: "0" });
    const badWindows: Record<string, number>[] = [{ limit: 0 }, { offset: -1 }, { limit: 1.5 }];
    for (const bad of badWindows) {
      const res = await list(bad);
      expectErrorBody(res, 400);
      expect(res.body).toMatchObject({ code: "validation_failed" });
    }
  });

  it("the contract gives every listing the same parameters and headers", async () => {
    const contract = await api<{
      paths: Record<
        string,
        Record<
          string,
          {
            parameters?: { name: string }[];
            requestBody?: unknown;
            responses: Record<string, { headers?: Record<string, unknown> }>;
          }
        >
      >;
    }>("/documentation/openapi.json");
    const listingOps = Object.entries(contract.body.paths)
      .flatMap(([path, item]) => Object.values(item).map((operation) => ({ path, operation })))
      .filter(({ operation }) => operation.responses["200"]?.headers?.["X-Has-More"]);
    expect(listingOps.length).toBeGreaterThanOrEqual(4);
    for (const { path, operation } of listingOps) {
      // Every listing answers a credential, so it carries the quota fields beside the paging ones; a
      // POST listing (a row query) also declares Idempotent-Replayed, as every write of a user does;
      // and every response of every operation declares X-Request-Id, X-D1-Bookmark and Server-Timing.
      const everyAnswers = ["Idempotent-Replayed", "X-Request-Id", "X-D1-Bookmark", "Server-Timing"];
      const headers = Object.keys(operation.responses["200"]?.headers ?? {}).filter((h) => !everyAnswers.includes(h));
      // The change feed counts no total: a count of the log on every poll would cost more than the page.
      const total = path === "/api/v1/changes" ? [] : ["X-Total-Count"];
      expect(headers.sort()).toEqual([
        "RateLimit",
        "RateLimit-Policy",
        "X-Has-More",
        "X-Next-Cursor",
        "X-Pagination-Limit",
        "X-Pagination-Offset",
        ...total,
      ]);
      // GET listings take `cursor` in the query; POST listings in their body.
      if (!operation.requestBody) expect(operation.parameters?.map((p) => p.name)).toContain("cursor");
    }
  });
});
