import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../lib/context";
import { badRequest } from "../../lib/errors";
import {
  createBlock,
  deleteBlock,
  duplicateBlock,
  refuseInternalType,
  updateBlock,
} from "../../services/blocks/commands";
import {
  getActiveBlock,
  getHierarchy,
  HIERARCHY_DEFAULT_DEPTH,
  listBlocks,
  listChildren,
} from "../../services/blocks/queries";
import type * as routes from "./blocks.routes";
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from "./blocks.schemas";

type Handler<R extends keyof typeof routes> = RouteHandler<(typeof routes)[R], AppEnv>;

/**
 * Reads a field that the contract accepts in two spellings (`parent_id` / `parentId`).
 * Giving both with different values is a 400, never a silent choice.
 */
function eitherSpelling<T>(body: Record<string, unknown>, snake: string, camel: string): T | undefined {
  const snakeValue = body[snake] as T | undefined;
  const camelValue = body[camel] as T | undefined;
  if (snakeValue !== undefined && camelValue !== undefined && snakeValue !== camelValue) {
    throw badRequest(`Give either ${snake} or ${camel}, not both with different values`, {
      [snake]: snakeValue,
      [camel]: camelValue,
    });
  }
  return snakeValue ?? camelValue;
}

export const list: Handler<"list"> = async (c) => {
  const query = c.req.valid("query");
  const limit = Math.min(query.limit ?? LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT);
  const offset = query.offset ?? 0;
  const page = await listBlocks(c.var.d1, c.var.user.id, {
    q: query.q,
    type: query.type,
    parentId: eitherSpelling(query, "parent_id", "parentId"),
    databaseId: eitherSpelling(query, "database_id", "databaseId"),
    archived: query.archived === "true",
    inTrash: query.in_trash === "true",
    limit,
    offset,
    sortBy: query.sortBy,
    sortOrder: query.sortOrder ?? "desc",
  });
  if (page.total !== null) c.header("X-Total-Count", String(page.total));
  c.header("X-Pagination-Limit", String(limit));
  c.header("X-Pagination-Offset", String(offset));
  c.header("X-Has-More", String(page.hasMore));
  return c.json(page.blocks, 200);
};

export const create: Handler<"create"> = async (c) => {
  const body = c.req.valid("json");
  const block = await createBlock(c.var.db, c.var.user.id, {
    id: body.id,
    type: body.type,
    properties: body.properties ?? {},
    parentId: eitherSpelling(body, "parent_id", "parentId") ?? null,
    databaseId: eitherSpelling(body, "database_id", "databaseId") ?? null,
    teamspaceId: eitherSpelling(body, "teamspace_id", "teamspaceId") ?? null,
    content: body.content,
    position: body.position,
  });
  return c.json(block, 201);
};

export const get: Handler<"get"> = async (c) => {
  return c.json(await getActiveBlock(c.var.db, c.var.user.id, c.req.valid("param").id), 200);
};

export const update: Handler<"update"> = async (c) => {
  const body = c.req.valid("json");
  const block = await updateBlock(c.var.db, c.var.user.id, c.req.valid("param").id, {
    type: body.type,
    properties: body.properties,
    parentId: eitherSpelling(body, "parent_id", "parentId"),
    databaseId: eitherSpelling(body, "database_id", "databaseId"),
    teamspaceId: eitherSpelling(body, "teamspace_id", "teamspaceId"),
    content: body.content,
    position: body.position,
    archived: body.archived,
    inTrash: body.in_trash,
  });
  return c.json(block, 200);
};

export const remove: Handler<"remove"> = async (c) => {
  const deletedCount = await deleteBlock(c.var.db, c.var.user.id, c.req.valid("param").id);
  return c.json({ success: true, message: "Block permanently deleted", deleted_count: deletedCount }, 200);
};

export const children: Handler<"children"> = async (c) => {
  return c.json(await listChildren(c.var.d1, c.var.user.id, c.req.valid("param").id), 200);
};

export const hierarchy: Handler<"hierarchy"> = async (c) => {
  const depth = c.req.valid("query").depth ?? HIERARCHY_DEFAULT_DEPTH;
  const { tree, truncated } = await getHierarchy(c.var.db, c.var.user.id, c.req.valid("param").id, depth);
  if (truncated) c.header("X-Hierarchy-Truncated", "true");
  return c.json(tree, 200);
};

export const duplicate: Handler<"duplicate"> = async (c) => {
  const body = c.req.valid("json") ?? {};
  const { block } = await duplicateBlock(c.var.db, c.var.user.id, c.req.valid("param").id, {
    includeChildren: body.include_children ?? true,
  });
  return c.json(block, 201);
};

export const convert: Handler<"convert"> = async (c) => {
  const body = c.req.valid("json");
  refuseInternalType(body.type);
  const block = await updateBlock(c.var.db, c.var.user.id, c.req.valid("param").id, {
    type: body.type,
    properties: body.properties,
  });
  return c.json(block, 200);
};

export const archive: Handler<"archive"> = async (c) => {
  const archived = c.req.valid("json")?.archived ?? true;
  return c.json(await updateBlock(c.var.db, c.var.user.id, c.req.valid("param").id, { archived }), 200);
};

export const trash: Handler<"trash"> = async (c) => {
  return c.json(await updateBlock(c.var.db, c.var.user.id, c.req.valid("param").id, { inTrash: true }), 200);
};

export const restore: Handler<"restore"> = async (c) => {
  const block = await updateBlock(c.var.db, c.var.user.id, c.req.valid("param").id, {
    inTrash: false,
    archived: false,
  });
  return c.json(block, 200);
};

export const move: Handler<"move"> = async (c) => {
  const body = c.req.valid("json");
  const parentId = eitherSpelling<string | null>(body, "parent_id", "parentId");
  const teamspaceId = eitherSpelling<string | null>(body, "teamspace_id", "teamspaceId");
  if (parentId === undefined && teamspaceId === undefined && body.position === undefined) {
    throw badRequest("Give at least one of parent_id, teamspace_id or position", {
      fields: ["parent_id", "teamspace_id", "position"],
    });
  }
  const block = await updateBlock(c.var.db, c.var.user.id, c.req.valid("param").id, {
    parentId,
    teamspaceId,
    position: body.position,
  });
  return c.json(block, 200);
};
