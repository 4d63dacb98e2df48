import { env } from "cloudflare:workers";
import { createRoute } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { assembleApp } from "../../src/app-frame";
import { createRouter } from "../../src/openapi/define-route";
import { api, createUser } from "../helpers/api";

// Browsers' scripts on other origins read what the API answers in headers only when CORS exposes
// them, and reuse a preflight's answer as long as Access-Control-Max-Age says.

const EXPOSED = [
  "ETag",
  "Location",
  "RateLimit",
  "RateLimit-Policy",
  "Retry-After",
  "Idempotent-Replayed",
  "Content-Range",
  "Accept-Ranges",
  "X-Request-Id",
  "X-Next-Cursor",
  "X-D1-Bookmark",
  "X-Total-Count",
  "X-Pagination-Limit",
  "X-Pagination-Offset",
  "X-Has-More",
  "X-Hierarchy-Truncated",
  "Content-Disposition",
  "X-Export-Row-Count",
  "X-Export-Truncated",
  "WWW-Authenticate",
  "Accept-Patch",
];

describe("CORS", () => {
  it("a preflight allows the request and may be kept for a day (Access-Control-Max-Age)", async () => {
    const preflight = await api("/api/v1/blocks", {
      method: "OPTIONS",
      headers: {
        Origin: "https://app.example",
        "Access-Control-Request-Method": "PATCH",
        "Access-Control-Request-Headers": "authorization, content-type, if-match, idempotency-key",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(preflight.headers.get("Access-Control-Max-Age")).toBe("86400");
    expect(preflight.headers.get("Access-Control-Allow-Methods")).toContain("PATCH");
    expect(preflight.headers.get("Access-Control-Allow-Headers")?.toLowerCase()).toContain("idempotency-key");
  });

  it("an answer exposes the headers scripts read: quota, retry, location, validators, paging, ids, file names, challenges", async () => {
    const user = await createUser();
    const res = await api("/api/v1/blocks?limit=1", { auth: user, headers: { Origin: "https://app.example" } });
    expect(res.status).toBe(200);
    const exposed = (res.headers.get("Access-Control-Expose-Headers") ?? "").split(",").map((name) => name.trim());
    expect(exposed.map((name) => name.toLowerCase()).sort()).toEqual(EXPOSED.map((name) => name.toLowerCase()).sort());
  });
});

/** The headers every answer carries, whatever made it. */
function expectFrameHeaders(res: { headers: Headers }): void {
  expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
  expect(res.headers.get("Access-Control-Expose-Headers")).toContain("X-Request-Id");
  expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  expect(res.headers.get("X-Request-Id")).toBeTruthy();
}

describe("CORS on every kind of answer", () => {
  it("a refusal, a missing route and a refused bookmark carry the CORS headers", async () => {
    const refused = await api("/api/v1/blocks", { headers: { Origin: "https://app.example" } });
    expect(refused.status).toBe(401);
    expectFrameHeaders(refused);
    const missing = await api("/api/v1/no-such-thing", { headers: { Origin: "https://app.example" } });
    expect(missing.status).toBe(404);
    expectFrameHeaders(missing);
    const user = await createUser();
    const badBookmark = await api("/api/v1/blocks", {
      auth: user,
      headers: { Origin: "https://app.example", "X-D1-Bookmark": "not-one" },
    });
    expect(badBookmark.status).toBe(400);
    expectFrameHeaders(badBookmark);
  });

  it("a request without an Origin (not a browser's cross-origin one) gets no CORS headers; every answer varies by Origin", async () => {
    const user = await createUser();
    const plain = await api("/api/v1/blocks?limit=1", { auth: user });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("Access-Control-Allow-Origin")).toBeNull();
    expect(plain.headers.get("Access-Control-Expose-Headers")).toBeNull();
    expect(plain.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(plain.headers.get("X-Request-Id")).toBeTruthy();
    const crossOrigin = await api("/api/v1/blocks?limit=1", { auth: user, headers: { Origin: "https://app.example" } });
    expectFrameHeaders(crossOrigin);
    for (const res of [plain, crossOrigin]) expect(res.headers.get("Vary")?.toLowerCase()).toContain("origin");
    const missing = await api("/api/v1/no-such-thing");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("Access-Control-Allow-Origin")).toBeNull();
    expect(missing.headers.get("Vary")?.toLowerCase()).toContain("origin");
  });

  it("a preflight is answered on any path, before the bookmark is looked at", async () => {
    const preflight = await api("/api/v1/no-such-thing", {
      method: "OPTIONS",
      headers: { Origin: "https://app.example", "Access-Control-Request-Method": "GET", "X-D1-Bookmark": "not-one" },
    });
    expect(preflight.status).toBe(204);
    expectFrameHeaders(preflight);
    expect(preflight.headers.get("Access-Control-Max-Age")).toBe("86400");
  });

  it("an answer whose headers cannot change (a redirect's) is answered through a copy, with every header", async () => {
    const router = createRouter();
    router.openapi(
      createRoute({ method: "get", path: "/elsewhere", responses: { 302: { description: "Elsewhere" } } }),
      () => Response.redirect("https://example.com/there", 302),
    );
    const answer = await assembleApp([router]).request(
      "/elsewhere",
      { headers: { Origin: "https://app.example" } },
      env,
    );
    expect(answer.status).toBe(302);
    expect(answer.headers.get("Location")).toBe("https://example.com/there");
    expectFrameHeaders(answer);
  });
});
