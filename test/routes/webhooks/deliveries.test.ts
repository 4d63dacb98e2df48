import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { api, createUser } from "../../helpers/api";
import { describeAuthMatrix } from "../../helpers/auth-matrix";
import { BLOCKS, createBlock, insertBlocks } from "../../helpers/blocks";
import { cronTick } from "../../helpers/cron";
import {
  consume,
  consumeDue,
  createWebhook,
  deliveriesOf,
  fakeReceiver,
  makeDue,
  receiverUrl,
  verified,
  WEBHOOKS,
} from "../../helpers/webhooks";

const DAY = 86_400_000;
let restore: (() => void) | undefined;
afterEach(() => restore?.());

function receiver(answer?: (request: Request) => Response) {
  const fake = fakeReceiver(answer);
  restore = () => fake.faked.restore();
  return fake;
}

describeAuthMatrix({
  name: "POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/retry",
  method: "POST",
  path: (id) => `${WEBHOOKS}/${id}`,
  setup: async (owner) => {
    const webhook = await createWebhook(owner, { url: receiverUrl() });
    // Written outside a request: nothing enqueues it, so only the retry below could change it.
    await insertBlocks([{ type: "page", properties: { title: "delivered" }, created_by: owner.id }]);
    const [delivery] = await deliveriesOf(webhook.id);
    return { id: `${webhook.id}/deliveries/${delivery?.id}/retry` };
  },
  readBack: async (owner, target) => {
    const res = await api(`${WEBHOOKS}/${target.id.split("/")[0]}/deliveries`, { auth: owner });
    return { status: res.status, body: res.body };
  },
});

describe("a delivery", () => {
  it("is a Standard Webhooks message carrying the event, verified by the standardwebhooks package", async () => {
    const { received } = receiver();
    const user = await createUser();
    const url = receiverUrl();
    const webhook = await createWebhook(user, { url });
    const page = await createBlock(user, { type: "page", properties: { title: "Launch plan" } });
    const [delivery, ...more] = await deliveriesOf(webhook.id);
    expect(more).toEqual([]);
    expect(delivery).toMatchObject({ event_type: "block.created", status: "pending", attempts: 0 });
    // The request that wrote the event marked it enqueued in its own batch.
    expect(delivery?.enqueued_at).not.toBeNull();

    await consume(webhook.id, [delivery?.id ?? 0]);
    const [request, ...again] = received(url);
    expect(again).toEqual([]);
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.headers["webhook-id"]).toBe(String(delivery?.event_id));
    expect(Math.abs(Number(request?.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
    expect(request?.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const payload = verified(webhook.secret, request as NonNullable<typeof request>);
    expect(payload).toMatchObject({
      type: "block.created",
      timestamp: expect.any(String),
      data: {
        id: delivery?.event_id,
        type: "block.created",
        object_id: page.id,
        actor_id: user.id,
        data: { id: page.id, properties: { title: "Launch plan" } },
      },
    });
    // Another secret does not verify it.
    expect(() => verified("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", request as NonNullable<typeof request>)).toThrow();

    const listed = await api<Record<string, unknown>[]>(`${WEBHOOKS}/${webhook.id}/deliveries`, { auth: user });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      expect.objectContaining({
        id: delivery?.id,
        webhook_id: webhook.id,
        event_id: delivery?.event_id,
        event_type: "block.created",
        status: "succeeded",
        attempts: 1,
        response_status: 200,
        response_duration_ms: expect.any(Number),
        last_error: null,
        next_attempt_at: null,
      }),
    ]);
  });

  it("goes only to endpoints whose event_types match", async () => {
    const user = await createUser();
    const created = await createWebhook(user, { url: receiverUrl(), event_types: ["block.created"] });
    const updated = await createWebhook(user, { url: receiverUrl(), event_types: ["block.updated"] });
    const block = await createBlock(user, { type: "paragraph", properties: { text: "one" } });
    await api(`${BLOCKS}/${block.id}`, { method: "PATCH", auth: user, body: { properties: { text: "two" } } });
    expect((await deliveriesOf(created.id)).map((row) => row.event_type)).toEqual(["block.created"]);
    expect((await deliveriesOf(updated.id)).map((row) => row.event_type)).toEqual(["block.updated"]);
  });

  it("is never made for an event the endpoint's user may not see", async () => {
    const mine = await createUser();
    const other = await createUser();
    const webhook = await createWebhook(mine, { url: receiverUrl() });
    const theirs = await createBlock(other, { type: "page", properties: { title: "Private" } });
    await api(`${BLOCKS}/${theirs.id}`, { method: "PATCH", auth: other, body: { properties: { title: "Still" } } });
    await api(`${BLOCKS}/${theirs.id}`, { method: "DELETE", auth: other });
    expect(await deliveriesOf(webhook.id)).toEqual([]);
    // A shared block (no owner) is everyone's: it is delivered.
    const [shared] = await insertBlocks([{ type: "page", properties: { title: "Shared" }, created_by: null }]);
    const rows = await deliveriesOf(webhook.id);
    expect(rows).toHaveLength(1);
    const event = await env.DB.prepare("SELECT object_id FROM change_events WHERE id = ?")
      .bind(rows[0]?.event_id)
      .first<{ object_id: string }>();
    expect(event?.object_id).toBe(shared);
  });

  it("of a shared block goes to every user's enabled endpoints; of an owned one, to its owner's only", async () => {
    const [first, second] = [await createUser(), await createUser()];
    const firstHook = await createWebhook(first, { url: receiverUrl() });
    const secondHook = await createWebhook(second, { url: receiverUrl() });
    const paused = await createWebhook(second, { url: receiverUrl() });
    await api(`${WEBHOOKS}/${paused.id}`, { method: "PATCH", auth: second, body: { enabled: false } });
    await insertBlocks([{ type: "page", properties: { title: "Shared" }, created_by: null }]);
    await createBlock(first, { type: "page", properties: { title: "First's" } });
    expect(await deliveriesOf(firstHook.id)).toHaveLength(2);
    expect(await deliveriesOf(secondHook.id)).toHaveLength(1);
    expect(await deliveriesOf(paused.id)).toEqual([]);
  });

  it("is in the outbox with its event even when the writer enqueued nothing: the Cron Trigger sends it", async () => {
    const { received } = receiver();
    const user = await createUser();
    const url = receiverUrl();
    const webhook = await createWebhook(user, { url });
    // A write outside any request (as if the Worker stopped right after it): the event and its delivery only.
    await insertBlocks([{ type: "page", properties: { title: "Orphan" }, created_by: user.id }]);
    const [delivery] = await deliveriesOf(webhook.id);
    expect(delivery).toMatchObject({ status: "pending", enqueued_at: null, event_type: "block.created" });
    await cronTick();
    const [picked] = await deliveriesOf(webhook.id);
    expect(picked?.enqueued_at).not.toBeNull();
    await consume(webhook.id, [picked?.id ?? 0]);
    expect(received(url)).toHaveLength(1);
    expect((await deliveriesOf(webhook.id))[0]?.status).toBe("succeeded");
  });
});

describe("retries", () => {
  it("back off after a failing receiver (5 s, then 5 min), and succeed when it recovers", async () => {
    let failing = true;
    const { received } = receiver(() =>
      failing ? new Response("down", { status: 503 }) : new Response(null, { status: 204 }),
    );
    const user = await createUser();
    const url = receiverUrl();
    const webhook = await createWebhook(user, { url });
    await createBlock(user, { type: "page", properties: { title: "Retry me" } });
    const [delivery] = await deliveriesOf(webhook.id);
    const id = delivery?.id ?? 0;

    let before = Date.now();
    await consume(webhook.id, [id]);
    let [row] = await deliveriesOf(webhook.id);
    expect(row).toMatchObject({ status: "pending", attempts: 1, response_status: 503, last_error: "status" });
    const first = Date.parse(row?.next_attempt_at ?? "") - before;
    expect(first).toBeGreaterThanOrEqual(4000);
    expect(first).toBeLessThan(60_000);

    // Not due yet: a message that arrives early sends nothing.
    await consume(webhook.id, [id]);
    expect(received(url)).toHaveLength(1);

    await makeDue(webhook.id);
    before = Date.now();
    await consumeDue(webhook.id);
    [row] = await deliveriesOf(webhook.id);
    expect(row).toMatchObject({ status: "pending", attempts: 2 });
    const second = Date.parse(row?.next_attempt_at ?? "") - before;
    expect(second).toBeGreaterThanOrEqual(290_000);
    expect(second).toBeLessThan(400_000);

    failing = false;
    await makeDue(webhook.id);
    await consumeDue(webhook.id);
    [row] = await deliveriesOf(webhook.id);
    expect(row).toMatchObject({ status: "succeeded", attempts: 3, response_status: 204, next_attempt_at: null });
    const sent = received(url);
    expect(sent).toHaveLength(3);
    // The same webhook-id on every attempt, each signed anew.
    expect(new Set(sent.map((request) => request.headers["webhook-id"])).size).toBe(1);
    for (const request of sent) verified(webhook.secret, request);
  });

  it("do not follow redirects, and give up after three days; three days of failures disable the endpoint", async () => {
    const { received } = receiver(
      () => new Response(null, { status: 302, headers: { Location: "https://10.0.0.1/" } }),
    );
    const user = await createUser();
    const url = receiverUrl();
    const webhook = await createWebhook(user, { url });
    await createBlock(user, { type: "page", properties: { title: "Never arrives" } });
    await consumeDue(webhook.id);
    expect((await deliveriesOf(webhook.id))[0]).toMatchObject({
      status: "pending",
      response_status: 302,
      last_error: "redirect",
    });
    expect(received(url)).toHaveLength(1);

    // Three days on: the delivery and the endpoint's failures are older than the span.
    const longAgo = new Date(Date.now() - 3 * DAY - 60_000).toISOString();
    await env.DB.batch([
      env.DB.prepare("UPDATE webhook_deliveries SET created_at = ? WHERE endpoint_id = ?").bind(longAgo, webhook.id),
      env.DB.prepare("UPDATE webhook_endpoints SET failing_since = ? WHERE id = ?").bind(longAgo, webhook.id),
    ]);
    await makeDue(webhook.id);
    await consumeDue(webhook.id);
    expect((await deliveriesOf(webhook.id))[0]).toMatchObject({ status: "failed", next_attempt_at: null });
    const read = await api<Record<string, unknown>>(`${WEBHOOKS}/${webhook.id}`, { auth: user });
    expect(read.body).toMatchObject({
      enabled: false,
      disabled_reason: "Deliveries failed for 3 days without a success",
      disabled_at: expect.any(String),
    });
    // Disabled: new events are not delivered to it.
    await createBlock(user, { type: "page", properties: { title: "While disabled" } });
    expect(await deliveriesOf(webhook.id)).toHaveLength(1);
  });

  it("of a delivery by POST .../retry: sent again now, with 202 and the delivery; 409 while the webhook is disabled", async () => {
    const { received } = receiver();
    const user = await createUser();
    const url = receiverUrl();
    const webhook = await createWebhook(user, { url });
    await createBlock(user, { type: "page", properties: { title: "Twice" } });
    await consumeDue(webhook.id);
    const [delivery] = await deliveriesOf(webhook.id);
    expect(delivery?.status).toBe("succeeded");
    const retryPath = `${WEBHOOKS}/${webhook.id}/deliveries/${delivery?.id}/retry`;
    const res = await api<Record<string, unknown>>(retryPath, { method: "POST", auth: user });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id: delivery?.id, status: "pending", next_attempt_at: expect.any(String) });
    await consumeDue(webhook.id);
    expect(received(url)).toHaveLength(2);
    expect((await deliveriesOf(webhook.id))[0]).toMatchObject({ status: "succeeded", attempts: 2 });

    expect(
      (await api(`${WEBHOOKS}/${webhook.id}/deliveries/999999999/retry`, { method: "POST", auth: user })).status,
    ).toBe(404);
    await api(`${WEBHOOKS}/${webhook.id}`, { method: "PATCH", auth: user, body: { enabled: false } });
    expect((await api(retryPath, { method: "POST", auth: user })).status).toBe(409);
  });

  it("during a secret's rotation are signed with both secrets, each verifying", async () => {
    const { received } = receiver();
    const user = await createUser();
    const url = receiverUrl();
    const webhook = await createWebhook(user, { url });
    const rotated = await api<{ secret: string }>(`${WEBHOOKS}/${webhook.id}/rotate-secret`, {
      method: "POST",
      auth: user,
    });
    await createBlock(user, { type: "page", properties: { title: "Rotating" } });
    await consumeDue(webhook.id);
    const [request] = received(url);
    expect(request?.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    verified(rotated.body.secret, request as NonNullable<typeof request>);
    verified(webhook.secret, request as NonNullable<typeof request>);
  });
});

describe("retention", () => {
  it("sweeps the deliveries of events the change log swept", async () => {
    const user = await createUser();
    const webhook = await createWebhook(user, { url: receiverUrl() });
    await createBlock(user, { type: "page", properties: { title: "Old" } });
    const [delivery] = await deliveriesOf(webhook.id);
    const old = new Date(Date.now() - 31 * DAY).toISOString();
    await env.DB.prepare("UPDATE change_events SET occurred_at = ? WHERE id <= ?").bind(old, delivery?.event_id).run();
    await cronTick();
    await cronTick();
    expect(await deliveriesOf(webhook.id)).toEqual([]);
  });
});
