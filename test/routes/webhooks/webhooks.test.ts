import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createUser } from "../../helpers/api";
import { describeAuthMatrix } from "../../helpers/auth-matrix";
import { sessionOf } from "../../helpers/cursor-matrix";
import { createWebhook, receiverUrl, WEBHOOKS } from "../../helpers/webhooks";

const SECRET = /^whsec_[A-Za-z0-9+/]+=*$/;

describeAuthMatrix({
  name: "POST /api/v1/webhooks",
  method: "POST",
  path: () => WEBHOOKS,
  body: { url: receiverUrl() },
});
describeAuthMatrix({ name: "GET /api/v1/webhooks", method: "GET", path: () => WEBHOOKS });
for (const [method, suffix, body] of [
  ["GET", "", undefined],
  ["PATCH", "", { description: "taken over" }],
  ["DELETE", "", undefined],
  ["POST", "/rotate-secret", undefined],
  ["GET", "/deliveries", undefined],
] as const) {
  describeAuthMatrix({
    name: `${method} /api/v1/webhooks/{id}${suffix}`,
    method,
    path: (id) => `${WEBHOOKS}/${id}${suffix}`,
    body,
    setup: (owner) => createWebhook(owner, { url: receiverUrl(), description: "mine" }),
    readBack: async (owner, target) => {
      const res = await api(`${WEBHOOKS}/${target.id}`, { auth: owner });
      return { status: res.status, body: res.body };
    },
  });
}

describe("POST /api/v1/webhooks", () => {
  it("answers the secret once (whsec_ + base64 of 32 bytes), with Location; GET and the listing never show it", async () => {
    const user = await createUser();
    const url = receiverUrl();
    const res = await api<{ id: string; secret: string }>(WEBHOOKS, {
      method: "POST",
      auth: user,
      body: { url, event_types: ["block.updated", "block.created"], description: "Warehouse" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      url,
      event_types: ["block.created", "block.updated"],
      description: "Warehouse",
      enabled: true,
      disabled_reason: null,
      previous_secret_expires_at: null,
    });
    expect(res.body.secret).toMatch(SECRET);
    expect(atob(res.body.secret.slice("whsec_".length))).toHaveLength(32);
    expect(res.headers.get("Location")).toBe(`${WEBHOOKS}/${res.body.id}`);
    const read = await api<Record<string, unknown>>(`${WEBHOOKS}/${res.body.id}`, { auth: user });
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty("secret");
    const listed = await api<Record<string, unknown>[]>(WEBHOOKS, { auth: user });
    expect(listed.body.map((webhook) => webhook.id)).toEqual([res.body.id]);
    expect(listed.body[0]).not.toHaveProperty("secret");
    expect(JSON.stringify(listed.body)).not.toContain(res.body.secret);
  });

  it.each([
    ["plain http to a public name", "http://hooks.example.com/in", "must be an https URL"],
    ["a private address", "https://10.0.0.7/in", "must not name a loopback, private, link-local or internal address"],
    [
      "cloud metadata",
      "https://169.254.169.254/latest",
      "must not name a loopback, private, link-local or internal address",
    ],
    ["an internal name", "https://db.internal/in", "must not name a loopback, private, link-local or internal address"],
    ["a public IP address", "https://93.184.216.34/in", "must name its host by a DNS name, not an IP address"],
    ["credentials", "https://user:pw@hooks.example.com/in", "must not carry a user name or password"],
  ])("refuses %s (400 naming url and why)", async (_name, url, reason) => {
    const user = await createUser();
    const res = await api<{ code: string; details: Record<string, unknown> }>(WEBHOOKS, {
      method: "POST",
      auth: user,
      body: { url },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("validation_failed");
    expect(res.body.details).toMatchObject({ field: "url", reason });
    const stored = await env.DB.prepare("SELECT count(*) AS n FROM webhook_endpoints WHERE user_id = ?")
      .bind(user.id)
      .first<{ n: number }>();
    expect(stored?.n).toBe(0);
  });

  it("stores the URL it calls: a fragment, never sent, is dropped", async () => {
    const user = await createUser();
    const created = await createWebhook(user, { url: "https://Hooks.Example.com/in?x=1#section" });
    expect(created.url).toBe("https://hooks.example.com/in?x=1");
    const patched = await api<{ url: string }>(`${WEBHOOKS}/${created.id}`, {
      method: "PATCH",
      auth: user,
      body: { url: "https://hooks.example.com/other#" },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.url).toBe("https://hooks.example.com/other");
  });

  it("accepts plain http to loopback only for local work", async () => {
    const user = await createUser();
    // The tests are local work (ENVIRONMENT test), as `wrangler dev` from this machine is.
    const local = await api(WEBHOOKS, { method: "POST", auth: user, body: { url: "http://127.0.0.1:9000/hooks" } });
    expect(local.status).toBe(201);
  });

  it("refuses an unknown event type, and a read-only key", async () => {
    const user = await createUser();
    const unknown = await api(WEBHOOKS, {
      method: "POST",
      auth: user,
      body: { url: receiverUrl(), event_types: ["page.exploded"] },
    });
    expect(unknown.status).toBe(400);
    const session = await sessionOf(user);
    const made = await api<{ key: string }>("/api/v1/api-keys", {
      method: "POST",
      auth: session,
      body: { name: "reader", scopes: ["read"] },
    });
    const refused = await api<{ code: string }>(WEBHOOKS, {
      method: "POST",
      auth: made.body.key,
      body: { url: receiverUrl() },
    });
    expect(refused.status).toBe(403);
    expect((await api(WEBHOOKS, { auth: made.body.key })).status).toBe(200);
  });
});

describe("PATCH, DELETE and rotate-secret", () => {
  it("merge-patches (null removes), checks a new URL, and honours If-Match", async () => {
    const user = await createUser();
    const webhook = await createWebhook(user, { url: receiverUrl(), description: "d", event_types: ["block.created"] });
    const read = await api(`${WEBHOOKS}/${webhook.id}`, { auth: user });
    const tag = read.headers.get("ETag") ?? "";
    expect(tag).toMatch(/^"wh\./);
    const patched = await api<Record<string, unknown>>(`${WEBHOOKS}/${webhook.id}`, {
      method: "PATCH",
      auth: user,
      headers: { "Content-Type": "application/merge-patch+json", "If-Match": tag },
      body: JSON.stringify({ description: null, event_types: null }),
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ description: null, event_types: null, url: webhook.url });
    expect(patched.headers.get("ETag")).not.toBe(tag);
    const stale = await api(`${WEBHOOKS}/${webhook.id}`, {
      method: "PATCH",
      auth: user,
      headers: { "If-Match": tag },
      body: { description: "late" },
    });
    expect(stale.status).toBe(412);
    const badUrl = await api<{ details: Record<string, unknown> }>(`${WEBHOOKS}/${webhook.id}`, {
      method: "PATCH",
      auth: user,
      body: { url: "https://192.168.1.1/x" },
    });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.details).toMatchObject({ field: "url" });
  });

  it("disables and re-enables, saying why while disabled", async () => {
    const user = await createUser();
    const webhook = await createWebhook(user, { url: receiverUrl() });
    const off = await api<Record<string, unknown>>(`${WEBHOOKS}/${webhook.id}`, {
      method: "PATCH",
      auth: user,
      body: { enabled: false },
    });
    expect(off.body).toMatchObject({ enabled: false, disabled_reason: "Disabled by its user" });
    const on = await api<Record<string, unknown>>(`${WEBHOOKS}/${webhook.id}`, {
      method: "PATCH",
      auth: user,
      body: { enabled: true },
    });
    expect(on.body).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null });
  });

  it("rotates the secret: a new one, answered once, the old one signing for 24 hours more", async () => {
    const user = await createUser();
    const webhook = await createWebhook(user, { url: receiverUrl() });
    const res = await api<{ secret: string; previous_secret_expires_at: string }>(
      `${WEBHOOKS}/${webhook.id}/rotate-secret`,
      { method: "POST", auth: user },
    );
    expect(res.status).toBe(200);
    expect(res.body.secret).toMatch(SECRET);
    expect(res.body.secret).not.toBe(webhook.secret);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const grace = Date.parse(res.body.previous_secret_expires_at) - Date.now();
    expect(grace).toBeGreaterThan(23.9 * 3_600_000);
    expect(grace).toBeLessThanOrEqual(24 * 3_600_000);
    const stored = await env.DB.prepare("SELECT secret, previous_secret FROM webhook_endpoints WHERE id = ?")
      .bind(webhook.id)
      .first<{ secret: string; previous_secret: string }>();
    expect(stored).toEqual({ secret: res.body.secret, previous_secret: webhook.secret });
  });

  it("answers its secret with Cache-Control: no-store at creation, and nothing else does", async () => {
    const user = await createUser();
    const created = await api<{ id: string }>(WEBHOOKS, { method: "POST", auth: user, body: { url: receiverUrl() } });
    expect(created.status).toBe(201);
    expect(created.headers.get("Cache-Control")).toBe("no-store");
    expect((await api(`${WEBHOOKS}/${created.body.id}`, { auth: user })).headers.get("Cache-Control")).toBeNull();
    const refused = await api(WEBHOOKS, { method: "POST", auth: user, body: { url: "http://10.0.0.1/x" } });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("Cache-Control")).toBeNull();
  });

  it("deletes, with its deliveries; a second delete is a 404", async () => {
    const user = await createUser();
    const webhook = await createWebhook(user, { url: receiverUrl() });
    const first = await api(`${WEBHOOKS}/${webhook.id}`, { method: "DELETE", auth: user });
    expect(first.status).toBe(200);
    expect((await api(`${WEBHOOKS}/${webhook.id}`, { method: "DELETE", auth: user })).status).toBe(404);
    expect((await api(`${WEBHOOKS}/${webhook.id}`, { auth: user })).status).toBe(404);
  });
});
