import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/lib/errors";
import { propagate } from "../../../src/services/synced-blocks/propagate";
import { createUser, type TestUser } from "../../helpers/api";
import { createBlock, storedRow } from "../../helpers/blocks";
import { contextMeddlingBefore } from "../../helpers/meddling-d1";
import { link, storedLink, storedSubtree } from "../../helpers/synced-blocks";

// What changes between a propagation's read and its write batch is caught by the
// batch's guard: nothing is written, the propagation is read again and applied to
// the new state (or refused, when the new state is refused). The change is made
// deterministically, by a D1 handle that runs it just before the write batch.

async function arrange(user: TestUser) {
  const page = await createBlock(user, { type: "page" });
  const source = await createBlock(user, { type: "callout", parent_id: page.id, properties: { title: "Source" } });
  await createBlock(user, { parent_id: source.id, properties: { title: "Early child" } });
  const instance = await createBlock(user, { parent_id: page.id, properties: { title: "Instance" } });
  const old = await createBlock(user, { parent_id: instance.id, properties: { title: "Old" } });
  await link(user, source.id, instance.id);
  return { page, source, instance, old };
}

describe("propagation against concurrent changes", () => {
  it("a child added to the source between the read and the write: the write is refused, then redone with it", async () => {
    const user = await createUser();
    const { source, instance, old } = await arrange(user);
    const { ctx, seen } = contextMeddlingBefore(user, 2, () =>
      env.DB.prepare(
        "INSERT INTO blocks (id, type, parent_id, properties, position, created_by) VALUES (?, 'paragraph', ?, ?, 5, ?)",
      )
        .bind(crypto.randomUUID(), source.id, JSON.stringify({ title: "Late child" }), user.id)
        .run(),
    );

    const result = await propagate(ctx, source.id);

    // Read, refused write, read again, write.
    expect(seen.batches).toBe(4);
    expect(result).toMatchObject({ updated: 1, copied_blocks: 2 });
    const titles = (await storedSubtree(instance.id)).map((row) => JSON.parse(String(row.properties)).title);
    expect(titles.sort()).toEqual(["Early child", "Late child"]);
    expect(await storedRow(old.id)).toBeNull();
  });

  it("an instance unlinked between the read and the write is left alone", async () => {
    const user = await createUser();
    const { page, source, instance } = await arrange(user);
    const second = await createBlock(user, { parent_id: page.id, properties: { title: "Second" } });
    await link(user, source.id, second.id);
    const { ctx, seen } = contextMeddlingBefore(user, 2, () =>
      env.DB.prepare("UPDATE synced_blocks SET status = 'unlinked' WHERE instance_block_id = ?").bind(second.id).run(),
    );
    const secondBefore = { row: await storedRow(second.id), subtree: await storedSubtree(second.id) };

    const result = await propagate(ctx, source.id);

    expect(seen.batches).toBe(4);
    expect(result).toMatchObject({ updated: 1, instance_block_ids: [instance.id] });
    expect({ row: await storedRow(second.id), subtree: await storedSubtree(second.id) }).toEqual(secondBefore);
    expect((await storedLink(second.id))?.last_synced_at).toBeNull();
  });

  it("an instance moved inside the source between the read and the write: refused with 409, nothing written", async () => {
    const user = await createUser();
    const { source, instance, old } = await arrange(user);
    const { ctx } = contextMeddlingBefore(user, 2, () =>
      env.DB.prepare("UPDATE blocks SET parent_id = ? WHERE id = ?").bind(source.id, instance.id).run(),
    );
    const before = { row: await storedRow(instance.id), subtree: await storedSubtree(instance.id) };

    const refused = await propagate(ctx, source.id).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 409, details: { hazards: [{ instance_block_id: instance.id }] } });
    // Only the move happened (a write of the block: its version moved on with it).
    expect({ row: await storedRow(instance.id), subtree: await storedSubtree(instance.id) }).toEqual({
      ...before,
      row: { ...before.row, parent_id: source.id, version: Number(before.row?.version) + 1 },
    });
    expect(await storedRow(old.id)).not.toBeNull();
    expect((await storedLink(instance.id))?.last_synced_at).toBeNull();
  });
});
