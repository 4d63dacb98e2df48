import { env, SELF } from "cloudflare:test";
import { generateApiKey } from "../../src/auth/api-key-format";

export interface TestUser {
  id: string;
  email: string;
  key: string;
}

/** A new user with a fresh API key, written straight to D1 as `npm run key` does. */
export async function createUser(): Promise<TestUser> {
  const id = crypto.randomUUID();
  const email = `${id}@example.test`;
  const key = await generateApiKey();
  await env.DB.batch([
    env.DB.prepare("INSERT INTO users (id, email) VALUES (?, ?)").bind(id, email),
    env.DB.prepare(
      "INSERT INTO api_keys (id, user_id, name, key_hash, display_prefix, display_suffix) VALUES (?, ?, ?, ?, ?, ?)",
    ).bind(crypto.randomUUID(), id, "test", key.hash, key.displayPrefix, key.displaySuffix),
  ]);
  return { id, email, key: key.raw };
}

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
  /** D1 round trips the request made, from the Server-Timing header. */
  roundTrips: number;
  /** Round trips of the request's own work: `roundTrips` less the API-key lookup, when it was not cached. */
  queryRoundTrips: number;
}

export interface RequestOptions {
  method?: string;
  /** Sent as JSON unless it is already a string. */
  body?: unknown;
  /** Raw API key or session token; omitted means no Authorization header. */
  auth?: string | TestUser;
  headers?: Record<string, string>;
  /** Return the body as raw bytes (a Uint8Array) instead of text or parsed JSON: for binary downloads. */
  raw?: boolean;
}

/**
 * A client address for a request that names none: one of 65,536 in 198.18.0.0/15 (RFC 2544's
 * benchmarking range, never a real client, never loopback), at random. Open routes count their
 * rate limit per client address, and the test files of a run share the limiter's counters: without
 * an address, every file's sign-ins would share one counter. Tests of the limit name their own.
 */
function anyClientAddress(): string {
  const [high = 0, low = 0] = crypto.getRandomValues(new Uint8Array(2));
  return `198.${18 + (high & 1)}.${high >> 1}.${low}`;
}

/** Sends a request through the Worker's own fetch handler, as a client would. */
export async function api<T = unknown>(path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers = new Headers(options.headers);
  if (!headers.has("CF-Connecting-IP")) headers.set("CF-Connecting-IP", anyClientAddress());
  if (options.auth !== undefined) {
    const token = typeof options.auth === "string" ? options.auth : options.auth.key;
    headers.set("Authorization", `Bearer ${token}`);
  }
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
  }
  const response = await SELF.fetch(`http://workspace.test${path}`, { method: options.method ?? "GET", headers, body });
  const timing = /d1;desc="(\d+) round trips"/.exec(response.headers.get("Server-Timing") ?? "");
  const roundTrips = timing ? Number(timing[1]) : Number.NaN;
  const keyLookedUp = (response.headers.get("Server-Timing") ?? "").includes('auth;desc="api key from D1"');
  const queryRoundTrips = roundTrips - (keyLookedUp ? 1 : 0);
  if (options.raw) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    return { status: response.status, body: bytes as T, headers: response.headers, roundTrips, queryRoundTrips };
  }
  const text = await response.text();
  const isJson = response.headers.get("Content-Type")?.includes("application/json");
  return {
    status: response.status,
    body: (isJson && text ? JSON.parse(text) : text) as T,
    headers: response.headers,
    roundTrips,
    queryRoundTrips,
  };
}

/** What the served contract documents as the answers of one operation, by status. */
export async function documentedResponses(
  path: string,
  method = "post",
): Promise<Record<string, { description: string } | undefined>> {
  type Contract = { paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>> };
  return (await api<Contract>("/documentation/openapi.json")).body.paths[path]?.[method]?.responses ?? {};
}

/**
 * A client address (IPv6 documentation range) no other request uses: open routes count requests
 * per address, and per /64 for IPv6, so each address gets a /64 of its own.
 */
export const newClientAddress = (): string => {
  const [a = "0", b = "0"] = crypto.randomUUID().split("-").slice(1, 3);
  return `2001:db8:${a}:${b}::1`;
};
