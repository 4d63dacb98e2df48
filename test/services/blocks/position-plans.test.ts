import { describe, expect, it } from "vitest";
import { createBlock as createBlockCommand, duplicateBlock } from "../../../src/services/blocks/commands";
import { createUser } from "../../helpers/api";
import { createBlock, insertBlocks } from "../../helpers/blocks";
import { planOf, recordingContext, type Statement, tableScansOf } from "../../helpers/query-plans";

// Where a new block goes is read from the siblings its writer sees, one owner at a time: each
// read seeks the (parent, owner, position) index to one entry. Read over every owner's siblings
// with the visibility test as a filter, a top-level create would read every top-level block (and
// database row) of the workspace.

// SQLite's plan shows `created_by IS NULL` as `created_by=?` too.
const SIBLINGS = "s USING INDEX blocks_parent_owner_position_idx (parent_id=? AND created_by=?";

const inserts = (statements: Statement[]) =>
  statements.filter((statement) => /^\s*INSERT INTO blocks/.test(statement.sql));

/** Every read of siblings (alias `s`) is such a seek, and there is one. */
function expectSeeksPerOwner(plan: string[]) {
  const siblingReads = plan.filter((line) => /^(SEARCH|SCAN) s\b/.test(line));
  expect(siblingReads.length, plan.join("\n")).toBeGreaterThan(0);
  for (const line of siblingReads) expect(line, plan.join("\n")).toContain(SIBLINGS);
  expect([...tableScansOf(plan)], plan.join("\n")).toEqual([]);
}

describe("a new block's position is a seek per owner among its siblings", async () => {
  const user = await createUser();
  const other = await createUser();
  // Top-level blocks of both owners and shared ones, enough that reading them all would show.
  await insertBlocks(
    Array.from({ length: 300 }, (_, i) => ({ type: "page", created_by: [user.id, other.id, null][i % 3] ?? null })),
  );
  const page = await createBlock(user, { type: "page" });
  const original = await createBlock(user, { parent_id: page.id, position: 1 });
  await createBlock(user, { parent_id: page.id, position: 2 });

  it("create at the top level and under a parent", async () => {
    for (const parentId of [null, page.id]) {
      const { ctx, statements } = recordingContext(user);
      await createBlockCommand(ctx, {
        type: "paragraph",
        properties: {},
        parentId,
        databaseId: null,
        teamspaceId: null,
        content: null,
      });
      const [insert] = inserts(statements);
      expect(insert).toBeDefined();
      expectSeeksPerOwner(await planOf(insert as Statement));
    }
  });

  it("duplicate", async () => {
    const { ctx, statements } = recordingContext(user);
    await duplicateBlock(ctx, original.id, { includeChildren: false });
    const [insert] = inserts(statements);
    expect(insert).toBeDefined();
    expectSeeksPerOwner(await planOf(insert as Statement));
  });
});
