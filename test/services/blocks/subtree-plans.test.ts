import { describe, expect, it } from "vitest";
import { deleteBlock, duplicateBlock } from "../../../src/services/blocks/commands";
import { propagate } from "../../../src/services/synced-blocks/propagate";
import { createUser } from "../../helpers/api";
import { createBlock, insertBlocks } from "../../helpers/blocks";
import { createDatabase } from "../../helpers/databases";
import { planOf, recordingContext, type Statement } from "../../helpers/query-plans";
import { link } from "../../helpers/synced-blocks";

// A walk down a subtree (duplicate, delete, synced-block propagation) must follow the parent
// and database indexes from each node it reaches. Joined on `parent_id = x OR database_id = x`,
// workerd's SQLite served the visibility test from the owner index instead and read all of the
// owner's blocks for every node: seconds for a 1,000-block tree in a 100,000-row workspace.

const CHILDREN = "blocks_parent_position_idx (parent_id=?)";
const ROWS = "blocks_database_order_idx (database_id=?)";

/** Plans of the recorded statements that walk down a subtree (a recursive CTE over blocks). */
async function walkPlans(statements: Statement[]): Promise<string[][]> {
  const walks = statements.filter((statement) => /WITH RECURSIVE (tree|targets|old)/.test(statement.sql));
  return Promise.all(walks.map(planOf));
}

function expectIndexedWalk(plan: string[]) {
  expect(plan.some((line) => line.includes(CHILDREN))).toBe(true);
  expect(plan.some((line) => line.includes(ROWS))).toBe(true);
  expect(
    plan.filter((line) => line.includes("blocks_owner_state_idx")),
    plan.join("\n"),
  ).toEqual([]);
  expect(plan.filter((line) => /^SCAN (b|c)$/.test(line))).toEqual([]);
}

describe("subtree walks seek by parent and by database at every node", async () => {
  const user = await createUser();
  // Enough of the owner's own blocks elsewhere that reading them all would show.
  await insertBlocks(Array.from({ length: 200 }, () => ({ type: "paragraph", created_by: user.id })));
  const root = await createBlock(user, { type: "page", properties: { title: "Root" } });
  await createBlock(user, { type: "paragraph", parent_id: root.id });
  const database = await createDatabase(user, { title: "Tasks", parentId: root.id, properties: [] });
  await insertBlocks([{ type: "database_row", database_id: database.id, created_by: user.id }]);

  it("duplicate", async () => {
    const { ctx, statements } = recordingContext(user);
    const { copied } = await duplicateBlock(ctx, root.id, { includeChildren: true });
    expect(copied).toBe(4);
    const plans = await walkPlans(statements);
    expect(plans.length).toBeGreaterThan(0);
    for (const plan of plans) expectIndexedWalk(plan);
  });

  it("delete", async () => {
    const doomed = await createBlock(user, { type: "page", properties: { title: "Doomed" } });
    await createBlock(user, { type: "paragraph", parent_id: doomed.id });
    const { ctx, statements } = recordingContext(user);
    expect(await deleteBlock(ctx, doomed.id)).toBe(2);
    const plans = await walkPlans(statements);
    expect(plans.length).toBeGreaterThan(0);
    for (const plan of plans) expectIndexedWalk(plan);
  });

  it("synced-block propagation", async () => {
    const instance = await createBlock(user, { type: "page", properties: { title: "Instance" } });
    await createBlock(user, { type: "paragraph", parent_id: instance.id });
    await link(user, root.id, instance.id);
    const { ctx, statements } = recordingContext(user);
    await propagate(ctx, root.id);
    const plans = await walkPlans(statements);
    expect(plans.length).toBeGreaterThan(2);
    for (const plan of plans) expectIndexedWalk(plan);
  });
});
