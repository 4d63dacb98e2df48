import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { backgroundUserContext } from "../../../src/lib/context";
import { markCommitted, releaseKey, reserveKey } from "../../../src/services/idempotency/keys";
import { createUser } from "../../helpers/api";

const REQUEST = { method: "POST", path: "/api/v1/pages", bodySha256: "0".repeat(64) };

const keyRow = (userId: string, key: string) =>
  env.DB.prepare("SELECT committed_at FROM idempotency_keys WHERE user_id = ? AND idempotency_key = ?")
    .bind(userId, key)
    .first<{ committed_at: number | null }>();

describe("releasing a key after a failure", () => {
  it("frees the key when no write of the attempt committed, so a retry runs", async () => {
    const user = await createUser();
    const ctx = backgroundUserContext(env, createExecutionContext(), user.id);
    const reservation = await reserveKey(ctx, "k-free", REQUEST);
    if (reservation.kind !== "owned") throw new Error(`expected the key, got ${reservation.kind}`);
    expect(await releaseKey(ctx, reservation.attempt, true)).toBe(true);
    expect(await keyRow(user.id, "k-free")).toBeNull();
  });

  it("after a failed batch, keeps the key when a write of the attempt committed (its marker set committed_at): the answer is recorded, never run again", async () => {
    const user = await createUser();
    const ctx = backgroundUserContext(env, createExecutionContext(), user.id);
    const reservation = await reserveKey(ctx, "k-kept", REQUEST);
    if (reservation.kind !== "owned") throw new Error(`expected the key, got ${reservation.kind}`);
    await markCommitted(ctx, reservation.attempt);
    expect(await releaseKey(ctx, reservation.attempt, true)).toBe(false);
    expect((await keyRow(user.id, "k-kept"))?.committed_at).toEqual(expect.any(Number));
  });

  it("without a failed batch, frees the key of an attempt whose batches committed but changed nothing (a DELETE of nothing)", async () => {
    const user = await createUser();
    const ctx = backgroundUserContext(env, createExecutionContext(), user.id);
    const reservation = await reserveKey(ctx, "k-nothing", REQUEST);
    if (reservation.kind !== "owned") throw new Error(`expected the key, got ${reservation.kind}`);
    await markCommitted(ctx, reservation.attempt);
    expect(await releaseKey(ctx, reservation.attempt)).toBe(true);
    expect(await keyRow(user.id, "k-nothing")).toBeNull();
  });
});
