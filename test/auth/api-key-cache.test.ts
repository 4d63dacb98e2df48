import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { KEY_CACHE_TTL_MS, rememberedKeyCount } from "../../src/auth/api-key-cache";
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

  it("a remembered key is not hashed again: its requests compute no digest", async () => {
    const [user, other] = [await createUser(), await createUser()];
    expect((await api("/api/v1/blocks", { auth: user })).status).toBe(200);
    const digest = vi.spyOn(crypto.subtle, "digest");
    const second = await api("/api/v1/blocks", { auth: user });
    expect(second.status).toBe(200);
    expect(authSource(second.headers)).toBe("api key from cache");
    expect(digest).not.toHaveBeenCalled();
    // Another key, not remembered, is hashed for its lookup.
    expect((await api("/api/v1/blocks", { auth: other })).status).toBe(200);
    expect(digest).toHaveBeenCalledTimes(1);
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

  it("a remembered key revoked elsewhere is refused on its next request, still in one round trip", async () => {
    const user = await createUser();
    expect((await api("/api/v1/blocks", { auth: user })).status).toBe(200);
    // Revoked behind this isolate's back, as another isolate would.
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE user_id = ?")
      .bind(new Date().toISOString(), user.id)
      .run();

    const refused = await api("/api/v1/blocks", { auth: user });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({
      error: "This API key has been revoked or has expired",
      code: "unauthorized",
      request_id: expect.any(String),
    });
    expect(authSource(refused.headers)).toBe("api key from cache");
  });

  it(`entries are forgotten after ${KEY_CACHE_TTL_MS} ms and looked up again`, async () => {
    const user = await createUser();
    expect(authSource((await api("/api/v1/blocks", { auth: user })).headers)).toBe("api key from D1");
    vi.spyOn(Date, "now").mockReturnValue(Date.now() + KEY_CACHE_TTL_MS + 1);
    const later = await api("/api/v1/blocks", { auth: user });
    expect(later.status).toBe(200);
    expect(authSource(later.headers)).toBe("api key from D1");
  });

  it("a key is not held past its entry's life: the next request forgets every expired entry, whoever sends it", async () => {
    const [first, second, later] = [await createUser(), await createUser(), await createUser()];
    expect((await api("/api/v1/blocks", { auth: first })).status).toBe(200);
    expect((await api("/api/v1/blocks", { auth: second })).status).toBe(200);
    expect(rememberedKeyCount()).toBeGreaterThanOrEqual(2);
    // Past every entry's life (those the tests before made under a clock moved ahead too), one
    // request of a third key leaves only its own.
    vi.spyOn(Date, "now").mockReturnValue(Date.now() + 10 * KEY_CACHE_TTL_MS);
    expect((await api("/api/v1/blocks", { auth: later })).status).toBe(200);
    expect(rememberedKeyCount()).toBe(1);
  });
});
