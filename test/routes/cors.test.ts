import { describe, expect, it } from "vitest";
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

  it("an answer exposes the headers scripts read: quota, retry, location, validators, paging, ids", async () => {
    const user = await createUser();
    const res = await api("/api/v1/blocks?limit=1", { auth: user, headers: { Origin: "https://app.example" } });
    expect(res.status).toBe(200);
    const exposed = (res.headers.get("Access-Control-Expose-Headers") ?? "").split(",").map((name) => name.trim());
    expect(exposed.map((name) => name.toLowerCase()).sort()).toEqual(EXPOSED.map((name) => name.toLowerCase()).sort());
  });
});
