import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { KEY_CACHE_TTL_MS } from "../../src/auth/api-key-cache";
import { generateApiKey } from "../../src/auth/api-key-format";
import { api, createUser } from "../helpers/api";

const authSource = (headers: Headers) => /auth;desc="([^"]+)"/.exec(headers.get("Server-Timing") ?? "")?.[1];

afterEach(() => {
  vi.restoreAllMocks();
});

describe("API-key lookups are remembered per isolate", () => {
  it("the first request looks the key up in D1; the next ones do not", async () => {
    const user = await createUser();
    const first = await api("/api/v1/blocks", { auth: user });
    expect(first.status).toBe(200);
    expect(authSource(first.headers)).toBe("api key from D1");
    expect(first.roundTrips).toBe(2);

    const second = await api("/api/v1/blocks", { auth: user });
    expect(second.status).toBe(200);
    expect(authSource(second.headers)).toBe("api key from cache");
    expect(second.roundTrips).toBe(1);
  });

  it("an unknown key is remembered as unknown: repeated attempts cost no D1 round trip", async () => {
    const { raw } = await generateApiKey();
    const first = await api("/api/v1/blocks", { auth: raw });
    expect(first.status).toBe(401);
    expect(first.roundTrips).toBe(1);
    const second = await api("/api/v1/blocks", { auth: raw });
    expect(second.status).toBe(401);
    expect(second.roundTrips).toBe(0);
  });

  it(`a revoked key stops working once its entry expires (${KEY_CACHE_TTL_MS} ms)`, async () => {
    const user = await createUser();
    expect((await api("/api/v1/blocks", { auth: user })).status).toBe(200);
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE user_id = ?")
      .bind(new Date().toISOString(), user.id)
      .run();

    // Within the lifetime of the remembered lookup the key still works...
    expect((await api("/api/v1/blocks", { auth: user })).status).toBe(200);

    // ...and after it, the key is looked up again and refused.
    const later = Date.now() + KEY_CACHE_TTL_MS + 1;
    vi.spyOn(Date, "now").mockReturnValue(later);
    const refused = await api("/api/v1/blocks", { auth: user });
    expect(refused.status).toBe(401);
    expect(authSource(refused.headers)).toBe("api key from D1");
  });
});
