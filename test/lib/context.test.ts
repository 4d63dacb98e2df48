import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { backgroundContext, backgroundUserContext } from "../../src/lib/context";
import { ERROR_CODES } from "../../src/lib/errors";
import { createTypedBlock } from "../../src/services/block-writes/writes";
import { listBlocks } from "../../src/services/blocks/queries";
import { api, createUser } from "../helpers/api";
import { createBlock } from "../helpers/blocks";

describe("a context without a request (Cron, Durable Object alarms, queues)", () => {
  it("acts for a user through the same services and visibility rules as their requests", async () => {
    const owner = await createUser();
    const stranger = await createUser();
    const page = await createBlock(owner, { type: "page", properties: { title: "Mine" } });
    const execution = createExecutionContext();

    const query = { limit: 10, offset: 0, archived: false, inTrash: false, sortOrder: "desc" } as const;

    const asOwner = backgroundUserContext(env, execution, owner.id);
    expect(asOwner.actor).toEqual({ userId: owner.id, via: "system", apiKeyId: null, scopes: ["read", "write"] });
    expect((await listBlocks(asOwner, query)).items.map((block) => block.id)).toEqual([page.id]);

    const asStranger = backgroundUserContext(env, execution, stranger.id);
    expect((await listBlocks(asStranger, query)).items).toEqual([]);
    await waitOnExecutionContext(execution);
  });

  it("has its own request id, a clock that can be fixed, and counts its D1 round trips", async () => {
    const user = await createUser();
    const fixed = new Date("2030-01-02T03:04:05.000Z");
    const ctx = backgroundUserContext(env, createExecutionContext(), user.id, { now: () => fixed });
    expect(ctx.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(backgroundContext(env, createExecutionContext()).actor).toBeNull();
    expect(ctx.signal.aborted).toBe(false);
    const { block } = await createTypedBlock(ctx, {
      type: "page",
      title: "Written at a fixed time",
      parentId: null,
      databaseId: null,
      teamspaceId: null,
      content: null,
    });
    expect(block).toMatchObject({
      created_by: user.id,
      created_at: fixed.toISOString(),
      updated_at: fixed.toISOString(),
    });
    expect(ctx.meter.count).toBe(1);
  });
});

describe("X-Request-Id", () => {
  it("echoes a caller's well-formed id on success and on errors", async () => {
    const user = await createUser();
    for (const path of ["/api/v1/blocks", "/api/v1/blocks/missing", "/no/such/route"]) {
      const res = await api(path, { auth: user, headers: { "X-Request-Id": "client-req_42.a:b" } });
      expect(res.headers.get("X-Request-Id"), path).toBe("client-req_42.a:b");
    }
  });

  it("replaces a missing or malformed id with a generated one, different per request", async () => {
    const first = await api("/test");
    const second = await api("/test", { headers: { "X-Request-Id": "bad id\twith spaces" } });
    const third = await api("/test", { headers: { "X-Request-Id": "x".repeat(200) } });
    const ids = [first, second, third].map((res) => res.headers.get("X-Request-Id"));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(new Set(ids).size).toBe(3);
  });

  it("is exposed to browsers, with the pagination headers", async () => {
    const res = await api("/api/v1/blocks", { headers: { Origin: "https://app.example" } });
    expect(res.headers.get("Access-Control-Expose-Headers")).toContain("X-Request-Id");
  });
});

describe("error codes", () => {
  it("every error body carries a code the contract lists, with the status it belongs to", async () => {
    const user = await createUser();
    const cases = [
      await api("/api/v1/blocks"),
      await api("/api/v1/blocks/nope", { auth: user }),
      await api("/api/v1/blocks", { method: "POST", auth: user, body: {} }),
      await api("/api/v1/blocks", { method: "POST", auth: user, body: "{" }),
      await api("/api/v1/blocks", { method: "DELETE", auth: user }),
      await api("/api/v1/blocks", { method: "POST", auth: user, body: { type: "provider_audit_log" } }),
      await api("/api/v1/blocks", {
        method: "POST",
        auth: user,
        body: "type=page",
        headers: { "Content-Type": "text/plain" },
      }),
    ];
    const contract = await api<{ components: { schemas: { Error: { properties: { code: { enum: string[] } } } } } }>(
      "/documentation/openapi.json",
    );
    const listed = contract.body.components.schemas.Error.properties.code.enum;
    expect(listed.sort()).toEqual(Object.keys(ERROR_CODES).sort());
    const seen = cases.map((res) => [res.status, (res.body as { code: keyof typeof ERROR_CODES }).code]);
    expect(seen).toEqual([
      [401, "unauthorized"],
      [404, "not_found"],
      [400, "validation_failed"],
      [400, "malformed_json"],
      [405, "method_not_allowed"],
      [403, "forbidden"],
      [415, "unsupported_media_type"],
    ]);
    for (const [status, code] of seen) expect(ERROR_CODES[code as keyof typeof ERROR_CODES].status).toBe(status);
  });
});
