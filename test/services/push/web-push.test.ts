import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { createContext } from "../../../src/lib/context";
import { ApiError } from "../../../src/lib/errors";
import { DEVELOPMENT_VAPID_PUBLIC_KEY } from "../../../src/services/push/config";
import {
  DEFAULT_PUSH_TTL_SECONDS,
  MAX_PUSH_PAYLOAD_BYTES,
  PUSH_TIMEOUT_MS,
  type PushTarget,
  pushTopic,
  sendPush,
} from "../../../src/services/push/web-push";
import { api, createUser } from "../../helpers/api";
import {
  type BrowserSubscription,
  base64url,
  FAKE_PUSH_ORIGIN,
  FakePushService,
} from "../../helpers/fake-push-service";
import { type FakedThirdParties, fakeThirdParties } from "../../helpers/third-party";

let push: FakePushService;
let faked: FakedThirdParties;
let logged: MockInstance[];

beforeEach(() => {
  push = new FakePushService({ vapidPublicKey: env.VAPID_PUBLIC_KEY });
  faked = push.install();
  logged = (["log", "info", "warn", "error"] as const).map((level) =>
    vi.spyOn(console, level).mockImplementation(() => undefined),
  );
});

afterEach(() => {
  faked.restore();
  for (const spy of logged) spy.mockRestore();
});

const background = (overrides: Partial<Env> = {}) => createContext({ env: { ...env, ...overrides } });

/** A stored subscription, as the delivery code reads it from push_subscriptions. */
const target = (subscription: BrowserSubscription): PushTarget => ({
  endpoint: subscription.endpoint,
  p256dh: subscription.keys.p256dh,
  auth: subscription.keys.auth,
});

/** Everything written to the console, as one string. */
const everythingLogged = () => JSON.stringify(logged.flatMap((spy) => spy.mock.calls));

const REMINDER = { kind: "reminder", title: "Ship the release", body: "Due at 17:00", url: "/pages/abc" };

describe("sendPush: what the push service receives", () => {
  it("the payload decrypts (RFC 8291 aes128gcm) to the JSON sent, under a valid VAPID signature: sent", async () => {
    const subscription = await push.subscribe();
    const result = await sendPush(background(), target(subscription), { payload: REMINDER });
    expect(result).toEqual({ outcome: "sent", status: 201 });
    expect(push.refused).toEqual([]);
    const [received] = push.delivered(subscription.endpoint);
    expect(received?.payload).toEqual(REMINDER);
    expect(received?.vapid).toMatchObject({
      aud: FAKE_PUSH_ORIGIN,
      sub: env.VAPID_SUBJECT,
      publicKey: DEVELOPMENT_VAPID_PUBLIC_KEY,
    });
    const nowSeconds = Date.now() / 1000;
    expect(received?.vapid.exp).toBeGreaterThan(nowSeconds);
    expect(received?.vapid.exp).toBeLessThanOrEqual(nowSeconds + 24 * 60 * 60);
  });

  it("sends the request to the endpoint itself, encrypted, without following redirects", async () => {
    const subscription = await push.subscribe();
    await sendPush(background(), target(subscription), { payload: "hello" });
    const [request] = faked.requests;
    expect(request?.url).toBe(subscription.endpoint);
    expect(request?.method).toBe("POST");
    expect(request?.redirect).toBe("manual");
    expect(request?.headers.get("Content-Encoding")).toBe("aes128gcm");
    expect(request?.headers.get("Content-Type")).toBe("application/octet-stream");
    expect(request?.headers.get("Authorization")).toMatch(/^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=[\w-]{87}$/);
    expect(push.delivered()[0]?.payload).toBe("hello");
  });

  it("every payload is padded to one 4096-byte record: the length discloses nothing", async () => {
    const subscription = await push.subscribe();
    const sizes: number[] = [];
    faked.restore();
    faked = fakeThirdParties(async (request) => {
      sizes.push((await request.clone().arrayBuffer()).byteLength);
      return push.handle(request);
    });
    await sendPush(background(), target(subscription), { payload: 1 });
    await sendPush(background(), target(subscription), { payload: "x".repeat(3000) });
    expect(sizes).toEqual([4096, 4096]);
    expect(push.delivered().map((p) => p.payload)).toEqual([1, "x".repeat(3000)]);
  });

  it("sends Topic, TTL and Urgency as given", async () => {
    const subscription = await push.subscribe();
    const topic = await pushTopic("reminder-1", "2026-12-01T09:00:00.000Z");
    await sendPush(background(), target(subscription), {
      payload: REMINDER,
      topic,
      ttlSeconds: 3600,
      urgency: "high",
    });
    expect(push.delivered()[0]).toMatchObject({ topic, ttl: 3600, urgency: "high" });
  });

  it("without them: a TTL of one day, no Topic, no Urgency (the push service takes normal)", async () => {
    const subscription = await push.subscribe();
    await sendPush(background(), target(subscription), { payload: REMINDER });
    expect(push.delivered()[0]).toMatchObject({ topic: null, ttl: DEFAULT_PUSH_TTL_SECONDS, urgency: null });
  });

  it("a TTL of 0 (deliver now or never) is sent as 0, and very-low urgency as it is", async () => {
    const subscription = await push.subscribe();
    await sendPush(background(), target(subscription), { payload: {}, ttlSeconds: 0, urgency: "very-low" });
    expect(push.delivered()[0]).toMatchObject({ ttl: 0, urgency: "very-low" });
  });

  it("a payload of exactly the largest size goes; one byte more is refused before anything is sent", async () => {
    const subscription = await push.subscribe();
    const largest = "x".repeat(MAX_PUSH_PAYLOAD_BYTES - 2);
    expect(await sendPush(background(), target(subscription), { payload: largest })).toEqual({
      outcome: "sent",
      status: 201,
    });
    await expect(sendPush(background(), target(subscription), { payload: `${largest}x` })).rejects.toThrow(RangeError);
    expect(push.count()).toBe(1);
  });

  it.each<[string, Record<string, unknown>]>([
    ["a topic of 33 characters", { topic: "a".repeat(33) }],
    ["a topic outside the base64url alphabet", { topic: "reminder:1" }],
    ["an empty topic", { topic: "" }],
    ["a negative TTL", { ttlSeconds: -1 }],
    ["a fractional TTL", { ttlSeconds: 1.5 }],
    ["an unknown urgency", { urgency: "urgent" }],
    ["a payload JSON cannot write", { payload: undefined }],
  ])("refuses %s (a bug of the caller) with a TypeError, sending nothing", async (_case, change) => {
    const subscription = await push.subscribe();
    const message = { payload: REMINDER, ...change } as Parameters<typeof sendPush>[2];
    await expect(sendPush(background(), target(subscription), message)).rejects.toThrow(TypeError);
    expect(faked.requests).toHaveLength(0);
  });
});

describe("pushTopic", () => {
  it("is 32 characters of the base64url alphabet, the same for the same firing, another for another", async () => {
    const topic = await pushTopic("4f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d", "2026-12-01T09:00:00.000Z");
    expect(topic).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(await pushTopic("4f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d", "2026-12-01T09:00:00.000Z")).toBe(topic);
    expect(await pushTopic("4f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d", "2026-12-02T09:00:00.000Z")).not.toBe(topic);
    expect(await pushTopic("other", "2026-12-01T09:00:00.000Z")).not.toBe(topic);
    // The separator keeps the two parts apart: ("a:b", "c") is not ("a", "b:c").
    expect(await pushTopic("a", "bc")).not.toBe(await pushTopic("ab", "c"));
  });
});

describe("sendPush: outcomes", () => {
  it.each([200, 201, 202, 204])("%i is sent", async (status) => {
    const subscription = await push.subscribe();
    push.respond(subscription.endpoint, status);
    expect(await sendPush(background(), target(subscription), { payload: REMINDER })).toEqual({
      outcome: "sent",
      status,
    });
  });

  it.each([404, 410])("%i is gone: the caller removes the subscription", async (status) => {
    const subscription = await push.subscribe();
    push.respond(subscription.endpoint, status);
    expect(await sendPush(background(), target(subscription), { payload: REMINDER })).toEqual({
      outcome: "gone",
      status,
    });
  });

  it.each([500, 502, 503, 429, 400, 401, 403, 413, 301])("%i is retry, with the status", async (status) => {
    const subscription = await push.subscribe();
    push.respond(subscription.endpoint, status);
    expect(await sendPush(background(), target(subscription), { payload: REMINDER })).toEqual({
      outcome: "retry",
      status,
    });
  });

  it("an endpoint the push service does not know (404 before reading) is gone", async () => {
    const subscription = await push.subscribe();
    const unknown = { ...target(subscription), endpoint: `${FAKE_PUSH_ORIGIN}/push/never-issued` };
    expect(await sendPush(background(), unknown, { payload: REMINDER })).toEqual({ outcome: "gone", status: 404 });
  });

  it("a push service that does not answer in time is retry without a status", async () => {
    const subscription = await push.subscribe();
    push.respond(subscription.endpoint, "hang");
    const result = await sendPush(background(), target(subscription), { payload: REMINDER }, { timeoutMs: 50 });
    expect(result).toEqual({ outcome: "retry", status: null });
    expect(faked.requests[0]?.signal.aborted).toBe(true);
  });

  it("the default timeout is 10 seconds", () => {
    expect(PUSH_TIMEOUT_MS).toBe(10_000);
  });

  it("a network failure (reset, unknown host) is retry without a status", async () => {
    const subscription = await push.subscribe();
    push.respond(subscription.endpoint, "network-error");
    expect(await sendPush(background(), target(subscription), { payload: REMINDER })).toEqual({
      outcome: "retry",
      status: null,
    });
    const elsewhere = { ...target(subscription), endpoint: "https://unreachable.example.test/push/x" };
    expect(await sendPush(background(), elsewhere, { payload: REMINDER })).toEqual({
      outcome: "retry",
      status: null,
    });
  });

  it("work cancelled before the answer (the client went away) is retry without a status", async () => {
    const subscription = await push.subscribe();
    push.respond(subscription.endpoint, "hang");
    const client = new AbortController();
    const sending = sendPush(createContext({ env, signal: client.signal }), target(subscription), {
      payload: REMINDER,
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    client.abort();
    expect(await sending).toEqual({ outcome: "retry", status: null });
  });

  it("follows a scripted sequence: 500, 500, then 201", async () => {
    const subscription = await push.subscribe();
    push.respond(subscription.endpoint, 500, 500, 201);
    const outcomes = [];
    for (let i = 0; i < 4; i++) {
      outcomes.push((await sendPush(background(), target(subscription), { payload: { attempt: i } })).outcome);
    }
    expect(outcomes).toEqual(["retry", "retry", "sent", "sent"]);
    expect(push.count(subscription.endpoint)).toBe(4);
    expect(push.delivered(subscription.endpoint).map((p) => p.payload)).toEqual([{ attempt: 2 }, { attempt: 3 }]);
  });

  it("a subscription that can never be sent to is gone without a request: unusable keys, a non-https endpoint", async () => {
    const subscription = await push.subscribe();
    const cases: PushTarget[] = [
      { ...target(subscription), p256dh: "AAAA" },
      { ...target(subscription), auth: "AAAA" },
      { ...target(subscription), endpoint: "not a url" },
      { ...target(subscription), endpoint: subscription.endpoint.replace("https:", "http:") },
      { ...target(subscription), endpoint: subscription.endpoint.replace("https://", "https://user:pass@") },
    ];
    for (const bad of cases) {
      expect(await sendPush(background(), bad, { payload: REMINDER }), JSON.stringify(bad)).toEqual({
        outcome: "gone",
        status: null,
      });
    }
    expect(faked.requests).toHaveLength(0);
  });

  it("a stored endpoint at an internal address (registered under an older rule) is gone, and nothing is sent", async () => {
    const subscription = await push.subscribe();
    for (const endpoint of [
      "https://10.0.0.1/push/x",
      "https://169.254.169.254/latest/meta-data/",
      "https://[::ffff:a9fe:a9fe]/x",
      "https://0.0.0.0/x",
      "https://metadata.google.internal/x",
      "https://push.example.test./x",
    ]) {
      expect(
        await sendPush(background(), { ...target(subscription), endpoint }, { payload: REMINDER }),
        endpoint,
      ).toEqual({ outcome: "gone", status: null });
    }
    expect(faked.requests).toHaveLength(0);
  });

  it("a push service answering a subscription made with another VAPID key refuses it (403): retry", async () => {
    const other = new FakePushService({ vapidPublicKey: "BOther-key-of-another-server" });
    faked.restore();
    faked = other.install();
    const subscription = await other.subscribe();
    expect(await sendPush(background(), target(subscription), { payload: REMINDER })).toEqual({
      outcome: "retry",
      status: 403,
    });
    expect(other.refused[0]?.reason).toMatch(/another key/);
  });
});

describe("the fake push service checks what a real one does", () => {
  it("refuses a body encrypted for another subscription (400): it does not decrypt", async () => {
    const [mine, theirs] = [await push.subscribe(), await push.subscribe()];
    const crossed = { ...target(theirs), endpoint: mine.endpoint };
    expect(await sendPush(background(), crossed, { payload: REMINDER })).toEqual({ outcome: "retry", status: 400 });
    expect(push.refused).toMatchObject([{ status: 400, reason: expect.stringMatching(/does not decrypt/) }]);
    expect(push.received).toEqual([]);
  });

  it("refuses a VAPID token whose claims were altered (403): the signature no longer verifies", async () => {
    const subscription = await push.subscribe();
    faked.restore();
    faked = fakeThirdParties((request) => {
      const headers = new Headers(request.headers);
      const [token, key] = (headers.get("Authorization") ?? "").replace("vapid t=", "").split(", k=");
      const [header, claims, signature] = (token ?? "").split(".");
      const altered = JSON.parse(atob((claims ?? "").replaceAll("-", "+").replaceAll("_", "/")));
      altered.exp += 60;
      const reencoded = btoa(JSON.stringify(altered)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
      headers.set("Authorization", `vapid t=${header}.${reencoded}.${signature}, k=${key}`);
      return push.handle(new Request(request, { headers }));
    });
    expect(await sendPush(background(), target(subscription), { payload: REMINDER })).toEqual({
      outcome: "retry",
      status: 403,
    });
    expect(push.refused[0]?.reason).toMatch(/signature does not verify/);
  });
});

describe("sendPush: a local push service over plain http", () => {
  it("is sent to in local work, signed for its https twin (the library signs https audiences only)", async () => {
    const local = new FakePushService({
      vapidPublicKey: env.VAPID_PUBLIC_KEY,
      origin: "http://127.0.0.1:9999",
      audience: "https://127.0.0.1:9999",
    });
    faked.restore();
    faked = local.install();
    const subscription = await local.subscribe();
    expect(await sendPush(background(), target(subscription), { payload: REMINDER })).toEqual({
      outcome: "sent",
      status: 201,
    });
    expect(local.refused).toEqual([]);
    expect(local.delivered(subscription.endpoint)[0]?.payload).toEqual(REMINDER);
    expect(faked.requests[0]?.url).toBe(subscription.endpoint);
  });

  it("outside local work such an endpoint is gone, and nothing is sent", async () => {
    const local = new FakePushService({ vapidPublicKey: "unused", origin: "http://127.0.0.1:9999" });
    const subscription = await local.subscribe();
    const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ])) as CryptoKeyPair;
    const ctx = background({
      ENVIRONMENT: "production",
      VAPID_PUBLIC_KEY: base64url(
        new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer),
      ),
      VAPID_PRIVATE_KEY: ((await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey).d as string,
      VAPID_SUBJECT: "mailto:ops@example.com",
    });
    expect(await sendPush(ctx, target(subscription), { payload: REMINDER })).toEqual({ outcome: "gone", status: null });
    expect(faked.requests).toHaveLength(0);
  });
});

describe("sendPush: configuration", () => {
  it("unconfigured (production, nothing set) throws the 503 naming the setting, sending nothing", async () => {
    const subscription = await push.subscribe();
    const ctx = background({ ENVIRONMENT: "production", VAPID_PUBLIC_KEY: "", VAPID_SUBJECT: "" });
    const error = await sendPush(ctx, target(subscription), { payload: REMINDER }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "unavailable", status: 503, details: { setting: "VAPID_PUBLIC_KEY" } });
    expect(faked.requests).toHaveLength(0);
  });

  it("in production the committed development pair is refused", async () => {
    const subscription = await push.subscribe();
    const ctx = background({ ENVIRONMENT: "production" });
    await expect(sendPush(ctx, target(subscription), { payload: REMINDER })).rejects.toMatchObject({
      code: "unavailable",
      details: { setting: "VAPID_PUBLIC_KEY" },
    });
    expect(faked.requests).toHaveLength(0);
  });
});

describe("sendPush: the endpoint is a capability", () => {
  it("is never logged nor put in an error, whatever happens", async () => {
    const subscriptions = await Promise.all(Array.from({ length: 6 }, () => push.subscribe()));
    const answers = [404, 410, 500, 429, "network-error", "hang"] as const;
    for (const [i, subscription] of subscriptions.entries()) {
      push.respond(subscription.endpoint, answers[i] as (typeof answers)[number]);
      await sendPush(background(), target(subscription), { payload: REMINDER }, { timeoutMs: 50 });
    }
    const thrown = await Promise.all([
      sendPush(background({ ENVIRONMENT: "production" }), target(subscriptions[0] as BrowserSubscription), {
        payload: REMINDER,
      }).catch((e: unknown) => e),
      sendPush(background(), target(subscriptions[0] as BrowserSubscription), {
        payload: REMINDER,
        topic: "bad topic",
      }).catch((e: unknown) => e),
    ]);
    const said = everythingLogged() + thrown.map((e) => JSON.stringify({ ...(e as object), m: String(e) })).join();
    expect(said).toContain("push.example.test");
    for (const subscription of subscriptions) {
      const secret = new URL(subscription.endpoint).pathname.split("/").pop() as string;
      expect(said).not.toContain(secret);
    }
  });
});

describe("end to end", () => {
  it("a browser registered through the API receives the push the delivery code sends to its stored row", async () => {
    const user = await createUser();
    const subscription = await push.subscribe();
    const registered = await api<{ id: string }>("/api/v1/push-subscriptions", {
      method: "POST",
      auth: user,
      body: { ...subscription, user_agent: "Firefox" },
    });
    expect(registered.status).toBe(201);
    const row = await env.DB.prepare("SELECT endpoint, p256dh, auth FROM push_subscriptions WHERE id = ?")
      .bind(registered.body.id)
      .first<PushTarget>();
    expect(row).not.toBeNull();
    const topic = await pushTopic("r1", "2026-12-01T09:00:00.000Z");
    const result = await sendPush(background(), row as PushTarget, { payload: REMINDER, topic, urgency: "high" });
    expect(result).toEqual({ outcome: "sent", status: 201 });
    expect(push.delivered(subscription.endpoint)).toMatchObject([{ payload: REMINDER, topic, urgency: "high" }]);
  });
});
