import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp, ROUTERS } from "../../src/app";
import { createLazyApp, ROUTE_GROUPS, underPrefix } from "../../src/lazy-app";

// The entries serve the app by path prefix (src/lazy-app.ts): these hold the prefix table to the
// routers it stands for, and the answers to the full app's.

/** Whether a route's path can match some request path under `prefix` (a `:param` matches any segment). */
function reaches(routePath: string, prefix: string): boolean {
  if (prefix === "/") return routePath === "/";
  const wanted = prefix.split("/");
  const segments = routePath.split("/");
  if (segments.includes("*")) return true;
  return (
    segments.length >= wanted.length &&
    wanted.every((segment, i) => segments[i] === segment || segments[i]?.startsWith(":"))
  );
}

describe("route groups", () => {
  it("load app.ts's routers, in its order", async () => {
    const loaded = await Promise.all(ROUTE_GROUPS.map((group) => group.load()));
    expect(loaded).toHaveLength(ROUTERS.length);
    for (const [i, router] of loaded.entries()) expect(router).toBe(ROUTERS[i]);
  });

  it("claim every prefix that any of their routes can answer under, and only their own routes' prefixes", async () => {
    const loaded = await Promise.all(ROUTE_GROUPS.map((group) => group.load()));
    for (const [i, router] of loaded.entries()) {
      const group = ROUTE_GROUPS[i];
      for (const route of router.routes) {
        // Each route lies under one of its group's prefixes...
        expect(
          group?.prefixes.some((prefix) => underPrefix(route.path, prefix)),
          route.path,
        ).toBe(true);
        // ...and no route can be reached under a prefix its group does not claim.
        for (const prefix of ROUTE_GROUPS.flatMap((other) => other.prefixes)) {
          if (reaches(route.path, prefix)) expect(group?.prefixes, `${route.path} under ${prefix}`).toContain(prefix);
        }
      }
    }
  });

  it("have prefixes that do not nest (a path has one prefix at most)", () => {
    const prefixes = [...new Set(ROUTE_GROUPS.flatMap((group) => group.prefixes))];
    for (const a of prefixes)
      for (const b of prefixes) if (a !== b) expect(underPrefix(a, b), `${a} under ${b}`).toBe(false);
  });
});

describe("the app served by prefix", () => {
  const full = createApp();
  const lazy = createLazyApp();

  /** What the lazy app and the full app answer to the same request, without the per-request headers. */
  async function both(method: string, path: string): Promise<[Response, Response]> {
    const request = () => new Request(`http://localhost${path}`, { method });
    return [await lazy.fetch(request(), env), await full.fetch(request(), env)];
  }

  const cases: [string, string][] = [
    ["PUT", "/api/v1/blocks"],
    ["DELETE", "/api/v1/blocks/"],
    ["PUT", "/api/v1/blocks/x/changes"],
    ["PATCH", "/api/v1/pages/x/export"],
    ["GET", "/api/v1/blocksx"],
    ["GET", "/api/v1/nothing"],
    ["POST", "/"],
    ["DELETE", "/health"],
    ["GET", "/mcp"],
    ["PATCH", "/payments/webhook"],
    ["GET", "/api/database-views/x/nothing"],
  ];
  for (const [method, path] of cases) {
    it(`answers ${method} ${path} as the full app does`, async () => {
      const [fromLazy, fromFull] = await both(method, path);
      expect(fromLazy.status).toBe(fromFull.status);
      expect(fromLazy.headers.get("Allow")).toBe(fromFull.headers.get("Allow"));
      const [lazyBody, fullBody] = [
        await fromLazy.json<{ request_id: string }>(),
        await fromFull.json<{ request_id: string }>(),
      ];
      expect({ ...lazyBody, request_id: "" }).toEqual({ ...fullBody, request_id: "" });
    });
  }

  it("serves the full app's contract, byte for byte", async () => {
    const [fromLazy, fromFull] = await both("GET", "/documentation/openapi.json");
    expect(fromLazy.status).toBe(200);
    expect(await fromLazy.text()).toBe(await fromFull.text());
  });

  it("answers a 405 through the Worker (src/index.ts) with the methods the path serves", async () => {
    const res = await SELF.fetch("http://localhost/api/v1/blocks", { method: "PUT" });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("GET, POST");
  });
});
