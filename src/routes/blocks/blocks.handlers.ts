import type { Context } from "hono";
import type { AuthenticatedAppEnv } from "../../auth/access";
import { badRequest } from "../../lib/errors";
import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import { eitherSpelling } from "../../lib/snake-or-camel";
import type { Handler } from "../../openapi/define-route";
import { answerTagged, preconditionsOf } from "../../openapi/entity-tags";
import { createTypedBlock, duplicateTypedBlock, updateTypedBlock } from "../../services/block-writes/writes";
import { deleteBlock, type UpdateBlockInput, updateBlock } from "../../services/blocks/commands";
import { expectBlock } from "../../services/blocks/presenter";
import {
  getActiveBlock,
  getHierarchy,
  HIERARCHY_DEFAULT_DEPTH,
  listBlocks,
  listChildren,
} from "../../services/blocks/queries";
import type * as routes from "./blocks.routes";

export const list: Handler<typeof routes.list> = async (c) => {
  const query = c.req.valid("query");
  const window = pageWindow(query);
  const page = await listBlocks(c.get("ctx"), {
    ...window,
    q: query.q,
    type: query.type,
    parentId: eitherSpelling(query, "parent_id", "parentId"),
    databaseId: eitherSpelling(query, "database_id", "databaseId"),
    archived: query.archived ?? false,
    inTrash: query.in_trash ?? false,
    sortBy: query.sortBy,
    sortOrder: query.sortOrder ?? "desc",
  });
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const create: Handler<typeof routes.create> = async (c) => {
  const body = c.req.valid("json");
  const { block } = await createTypedBlock(c.get("ctx"), {
    id: body.id,
    type: body.type,
    properties: body.properties ?? {},
    parentId: eitherSpelling(body, "parent_id", "parentId") ?? null,
    databaseId: eitherSpelling<string | null>(body, "database_id", "databaseId") ?? null,
    teamspaceId: eitherSpelling(body, "teamspace_id", "teamspaceId") ?? null,
    content: body.content,
    position: body.position,
  });
  return answerTagged(c, block, 201);
};

export const get: Handler<typeof routes.get> = async (c) => {
  return answerTagged(c, await getActiveBlock(c.get("ctx"), c.req.valid("param").id), 200);
};

export const update: Handler<typeof routes.update> = async (c) => {
  const body = c.req.valid("json");
  const { id } = c.req.valid("param");
  const change = {
    type: body.type,
    databaseId: eitherSpelling<string | null>(body, "database_id", "databaseId"),
    properties: body.properties,
    content: body.content,
    parentId: eitherSpelling<string | null>(body, "parent_id", "parentId"),
    teamspaceId: eitherSpelling<string | null>(body, "teamspace_id", "teamspaceId"),
    position: body.position,
    archived: body.archived,
    inTrash: body.in_trash,
  };
  const { block } = await updateTypedBlock(c.get("ctx"), id, change, undefined, expectBlock(id, preconditionsOf(c)));
  return answerTagged(c, block, 200);
};

export const remove: Handler<typeof routes.remove> = async (c) => {
  const { id } = c.req.valid("param");
  const deletedCount = await deleteBlock(c.get("ctx"), id, expectBlock(id, preconditionsOf(c)));
  return c.json({ success: true, message: "Block permanently deleted", deleted_count: deletedCount }, 200);
};

export const children: Handler<typeof routes.children> = async (c) => {
  return c.json(await listChildren(c.get("ctx"), c.req.valid("param").id), 200);
};

export const hierarchy: Handler<typeof routes.hierarchy> = async (c) => {
  const depth = c.req.valid("query").depth ?? HIERARCHY_DEFAULT_DEPTH;
  const { tree, truncated } = await getHierarchy(c.get("ctx"), c.req.valid("param").id, depth);
  if (truncated) c.header("X-Hierarchy-Truncated", "true");
  return c.json(tree, 200);
};

export const duplicate: Handler<typeof routes.duplicate> = async (c) => {
  const body = c.req.valid("json") ?? {};
  const { id } = c.req.valid("param");
  const { block } = await duplicateTypedBlock(c.get("ctx"), id, {
    includeChildren: body.include_children ?? true,
    expected: expectBlock(id, preconditionsOf(c)),
  });
  return answerTagged(c, block, 201);
};

export const convert: Handler<typeof routes.convert> = async (c) => {
  const body = c.req.valid("json");
  const { id } = c.req.valid("param");
  const change = { type: body.type, properties: body.properties };
  const { block } = await updateTypedBlock(c.get("ctx"), id, change, undefined, expectBlock(id, preconditionsOf(c)));
  return answerTagged(c, block, 200);
};

/** A block command (archive, trash, restore, move): one conditional update, answered with the block and its new tag. */
async function command(c: Context<AuthenticatedAppEnv>, id: string, change: UpdateBlockInput) {
  return updateBlock(c.get("ctx"), id, change, { expected: expectBlock(id, preconditionsOf(c)) });
}

export const archive: Handler<typeof routes.archive> = async (c) => {
  const archived = c.req.valid("json")?.archived ?? true;
  return answerTagged(c, await command(c, c.req.valid("param").id, { archived }), 200);
};

export const trash: Handler<typeof routes.trash> = async (c) => {
  return answerTagged(c, await command(c, c.req.valid("param").id, { inTrash: true }), 200);
};

export const restore: Handler<typeof routes.restore> = async (c) => {
  const block = await command(c, c.req.valid("param").id, { inTrash: false, archived: false });
  return answerTagged(c, block, 200);
};

export const move: Handler<typeof routes.move> = async (c) => {
  const body = c.req.valid("json");
  const parentId = eitherSpelling<string | null>(body, "parent_id", "parentId");
  const teamspaceId = eitherSpelling<string | null>(body, "teamspace_id", "teamspaceId");
  if (parentId === undefined && teamspaceId === undefined && body.position === undefined) {
    throw badRequest("Give at least one of parent_id, teamspace_id or position", {
      fields: ["parent_id", "teamspace_id", "position"],
    });
  }
  const block = await command(c, c.req.valid("param").id, { parentId, teamspaceId, position: body.position });
  return answerTagged(c, block, 200);
};
