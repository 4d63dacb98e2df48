import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ALL_SCOPES } from "../../../src/auth/scopes";
import { namingTheWriter } from "../../../src/db/write-context";
import { actingAs, createContext, withD1 } from "../../../src/lib/context";
import { refusalIn } from "../../../src/lib/failures";
import { createTypedBlock } from "../../../src/services/block-writes/writes";
import { markingCommits } from "../../../src/services/idempotency/commit-marker";
import { IDEMPOTENCY_KEY_TTL_MS, IDEMPOTENCY_LOCK_MS } from "../../../src/services/idempotency/keys";
import { api, createUser, type TestUser } from "../../helpers/api";
import { BLOCKS } from "../../helpers/blocks";
import { changesAfter, feedEnd } from "../../helpers/changes";

// A write with an Idempotency-Key is one batch: the writer named (write_context set), the writes
// and the events their triggers log, the writer cleared, and the key's commit marker, which fails
// the whole batch when another attempt holds the key. So an event is logged exactly when its write
// commits: never for a write the marker refused, never twice for one key.

describe("writes with an Idempotency-Key", () => {
  it("a burst of the same keyed POST creates one block, and the feed has its one block.created", async () => {
    const user = await createUser();
    const start = await feedEnd(user);
    const key = `"${crypto.randomUUID()}"`;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        api<{ id?: string; code?: string }>(BLOCKS, {
          method: "POST",
          auth: user,
          headers: { "Idempotency-Key": key },
          body: { type: "paragraph", properties: { text: "once" } },
        }),
      ),
    );
    for (const answer of answers) {
      expect(
        answer.status === 201 || (answer.status === 409 && answer.body.code === "idempotency_in_progress"),
        JSON.stringify(answer.body),
      ).toBe(true);
    }
    const ids = new Set(answers.filter((answer) => answer.status === 201).map((answer) => answer.body.id));
    expect(ids.size).toBe(1);
    const created = (await changesAfter(user, start)).events.filter((event) => event.type === "block.created");
    expect(created.map((event) => event.object_id)).toEqual([...ids]);
  });

  it("an attempt whose key another attempt took over writes nothing and logs nothing (the hooks stacked as a request stacks them)", async () => {
    const user = await createUser();
    const attempt = await holdKey(user, "stale attempt");
    const now = () => new Date();
    // As a request: the access middleware names the writer, the key's middleware marks its commits.
    const ctx = actingAs(
      withD1(createContext({ env }), (d1) => {
        const named = namingTheWriter(d1, { actorId: user.id, requestId: "taken-over", now });
        return markingCommits(named, attempt, now).d1;
      }),
      { userId: user.id, via: "api_key", apiKeyId: null, scopes: ALL_SCOPES },
    );
    const start = await feedEnd(user);
    await env.DB.prepare("UPDATE idempotency_keys SET token = 'the retry' WHERE user_id = ?").bind(user.id).run();

    const id = crypto.randomUUID();
    const block = { id, type: "paragraph", properties: { text: "lost" }, content: null };
    const thrown = await createTypedBlock(ctx, { ...block, parentId: null, databaseId: null, teamspaceId: null }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusalIn(thrown)?.code).toBe("idempotency_in_progress");
    expect(await env.DB.prepare("SELECT 1 FROM blocks WHERE id = ?").bind(id).first()).toBeNull();
    expect((await changesAfter(user, start)).events).toEqual([]);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM write_context").first("n")).toBe(0);
  });
});

/** A key held by an attempt with `token`, as the key's middleware reserves it. */
async function holdKey(user: TestUser, token: string) {
  const key = crypto.randomUUID();
  const now = Date.now();
  await env.DB.prepare(
    `INSERT INTO idempotency_keys (user_id, idempotency_key, method, path, body_sha256, token, created_at, expires_at, locked_until)
     VALUES (?, ?, 'POST', ?, 'sha', ?, ?, ?, ?)`,
  )
    .bind(user.id, key, BLOCKS, token, now, now + IDEMPOTENCY_KEY_TTL_MS, now + IDEMPOTENCY_LOCK_MS)
    .run();
  return { userId: user.id, key, token };
}
