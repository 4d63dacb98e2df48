import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { allowsLocalShortcuts, connectsFromLoopback } from "../../src/lib/environment";

// Local work (the development sign-in provider, development secrets, http to this machine) is
// decided from the configuration and the connection as the platform reports it, never from the
// Host header. The suite itself runs as ENVIRONMENT = "test" (always local), so these requests
// run the app under the development configuration that `wrangler dev` uses.

const DEVELOPMENT: Partial<Env> = {
  ENVIRONMENT: "development",
  AUTH_PROVIDER: "development",
  // Long enough for any environment: a refusal below is the provider's, not the secret's.
  SESSION_SECRET: "a-session-secret-of-forty-characters-0001",
};

/** Signs in `dev:<email>` under the development configuration, as a request to `url` with `headers`. */
async function devSignIn(url: string, headers: Record<string, string>) {
  const res = await createApp().request(
    url,
    {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify({ sessionId: `dev:${crypto.randomUUID()}@example.test` }),
    },
    { ...env, ...DEVELOPMENT },
    createExecutionContext(),
  );
  return { status: res.status, body: (await res.json()) as { code?: string; error?: string } };
}

describe("who signs in through the development provider under ENVIRONMENT = development", () => {
  it("a request saying `Host: localhost` over a connection from another machine does not", async () => {
    for (const headers of [
      { Host: "localhost", "CF-Connecting-IP": "192.0.2.2" } as Record<string, string>,
      { Host: "localhost" },
      { Host: "127.0.0.1:8787", "CF-Connecting-IP": "203.0.113.9" },
    ]) {
      const res = await devSignIn("http://localhost/auth/complete", headers);
      expect(res.status, JSON.stringify(headers)).toBe(503);
      expect(res.body.error).toMatch(/development provider serves only local development/);
    }
  });

  it("a connection from this machine does, whatever Host it names", async () => {
    for (const [url, peer] of <[string, string][]>[
      ["http://127.0.0.1:8787/auth/complete", "127.0.0.1"],
      ["http://workspace.example/auth/complete", "127.0.0.1"],
      ["http://localhost:8787/auth/complete", "::1"],
    ]) {
      expect((await devSignIn(url, { "CF-Connecting-IP": peer })).status, url).toBe(200);
    }
  });

  it("a request a proxy forwarded to this machine does not (a tunnel or reverse proxy on the same host)", async () => {
    for (const forwarded of [
      { "X-Forwarded-For": "203.0.113.9" } as Record<string, string>,
      { Forwarded: "for=203.0.113.9" },
      { "X-Real-IP": "203.0.113.9" },
      { "X-Forwarded-Proto": "https" },
    ]) {
      const res = await devSignIn("http://localhost/auth/complete", { "CF-Connecting-IP": "127.0.0.1", ...forwarded });
      expect(res.status, JSON.stringify(forwarded)).toBe(503);
    }
  });
});

describe("connectsFromLoopback and allowsLocalShortcuts", () => {
  it("read the peer address, never the Host header", () => {
    expect(connectsFromLoopback(new Headers({ Host: "localhost" }))).toBe(false);
    expect(connectsFromLoopback(new Headers({ Host: "localhost", "CF-Connecting-IP": "10.0.0.5" }))).toBe(false);
    expect(connectsFromLoopback(new Headers({ "CF-Connecting-IP": "localhost" }))).toBe(false);
    expect(connectsFromLoopback(new Headers({ "CF-Connecting-IP": "127.0.0.1" }))).toBe(true);
    expect(connectsFromLoopback(new Headers({ "CF-Connecting-IP": "::1" }))).toBe(true);
  });

  it("local work needs the development configuration and such a connection; production never is", () => {
    const with_ = (ENVIRONMENT: string, local: boolean) =>
      allowsLocalShortcuts({ env: { ...env, ENVIRONMENT }, local: () => local });
    expect(with_("development", true)).toBe(true);
    expect(with_("development", false)).toBe(false);
    expect(with_("production", true)).toBe(false);
    expect(with_("test", false)).toBe(true);
  });
});
