import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { generateApiKey, hashApiKey } from "../../src/auth/api-key-format";
import { type ApiResponse, api, createUser, type TestUser } from "./api";

/**
 * The authentication and ownership checks every authenticated endpoint must pass.
 * One call describes them for one endpoint; later resources reuse it unchanged.
 */
export interface AuthMatrixOptions<T extends { id: string }> {
  /** Test-name prefix, e.g. "PATCH /api/v1/blocks/{id}". */
  name: string;
  method: string;
  /** The request path for the target object (collection endpoints ignore the id). */
  path: (id: string) => string;
  /** Request body sent with every check (JSON unless a string). */
  body?: unknown;
  /**
   * Creates the object the request targets, owned by `owner`. Omit for collection
   * endpoints: then only the 401 checks run.
   */
  setup?: (owner: TestUser) => Promise<T>;
  /** What the owner sees of the object; it must be equal before and after every refused request. */
  readBack?: (owner: TestUser, target: T) => Promise<unknown>;
}

/** Authorization header values that are not a bearer credential of any user. */
export const MALFORMED_AUTHORIZATION = ["Basic x", "Bearer", "Bearer sr_short"];

/** Adds a second API key to `user` (as `createUser` writes the first) and returns the raw key. */
export async function addApiKey(user: TestUser): Promise<string> {
  const key = await generateApiKey();
  await env.DB.prepare(
    "INSERT INTO api_keys (id, user_id, name, key_hash, display_prefix, display_suffix) VALUES (?, ?, ?, ?, ?, ?)",
  )
    .bind(crypto.randomUUID(), user.id, "second", key.hash, key.displayPrefix, key.displaySuffix)
    .run();
  return key.raw;
}

export async function revokeApiKey(raw: string): Promise<void> {
  await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE key_hash = ?")
    .bind(new Date().toISOString(), await hashApiKey(raw))
    .run();
}

export function expectErrorBody(res: ApiResponse, status: number): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ error: expect.any(String) });
}

/** A read-back with the `request_id` of any error body in it left out: each read has its own. */
function withoutRequestIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutRequestIds);
  // Only plain objects: anything else (bytes, Headers) is compared as it is.
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== "request_id")
      .map(([key, item]) => [key, withoutRequestIds(item)]),
  );
}

export function describeAuthMatrix<T extends { id: string }>(options: AuthMatrixOptions<T>): void {
  const { name, method, path, body, setup, readBack } = options;

  /** A fresh owner with their own target object, and the owner's view of it before the request. */
  async function arrange() {
    const owner = await createUser();
    const target = setup ? await setup(owner) : undefined;
    const before = target && readBack ? withoutRequestIds(await readBack(owner, target)) : undefined;
    const assertUnchanged = async () => {
      if (target && readBack) expect(withoutRequestIds(await readBack(owner, target))).toEqual(before);
    };
    return { owner, url: path(target?.id ?? "unused"), assertUnchanged };
  }

  const send = (url: string, headers?: Record<string, string>) => api(url, { method, body, headers });

  const expectUnauthorized = (res: ApiResponse) => {
    expectErrorBody(res, 401);
    expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
  };

  describe(`${name}: authentication and ownership`, () => {
    it("401 without an Authorization header, changing nothing", async () => {
      const { url, assertUnchanged } = await arrange();
      expectUnauthorized(await send(url));
      await assertUnchanged();
    });

    it.each(MALFORMED_AUTHORIZATION)("401 for the malformed header %j, changing nothing", async (header) => {
      const { url, assertUnchanged } = await arrange();
      expectUnauthorized(await send(url, { Authorization: header }));
      await assertUnchanged();
    });

    it("401 for a well-formed but unknown sr_ key, changing nothing", async () => {
      const { url, assertUnchanged } = await arrange();
      const unknown = await generateApiKey();
      expectUnauthorized(await send(url, { Authorization: `Bearer ${unknown.raw}` }));
      await assertUnchanged();
    });

    it("401 for the owner's own key once revoked, changing nothing", async () => {
      const { owner, url, assertUnchanged } = await arrange();
      const revoked = await addApiKey(owner);
      await revokeApiKey(revoked);
      expectUnauthorized(await send(url, { Authorization: `Bearer ${revoked}` }));
      await assertUnchanged();
    });

    if (setup) {
      it("404 for another user's object, which stays unchanged", async () => {
        const { url, assertUnchanged } = await arrange();
        const intruder = await createUser();
        const res = await send(url, { Authorization: `Bearer ${intruder.key}` });
        expectErrorBody(res, 404);
        await assertUnchanged();
      });
    }
  });
}
