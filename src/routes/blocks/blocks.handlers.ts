import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../lib/context";
import { badRequest } from "../../lib/errors";
import { eitherSpelling } from "../../lib/spellings";
import { setPaginationHeaders } from "../../openapi/responses";
import { createBlock, deleteBlock, duplicateBlock, updateBlock } from "../../services/blocks/commands";
import {
  getActiveBlock,
  getHierarchy,
  HIERARCHY_DEFAULT_DEPTH,
  listBlocks,
  listChildren,
} from "../../services/blocks/queries";
import { normalizeBlockChange, normalizeTypedFields } from "../../services/blocks/typed-fields";
import type * as routes from "./blocks.routes";
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from "./blocks.schemas";

type Handler<R extends keyof typeof routes> = RouteHandler<(typeof routes)[R], AppEnv>;

export const list: Handler<"list"> = async (c) => {
  const query = c.req.valid("query");
  const limit = Math.min(query.limit ?? LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT);
  const offset = query.offset ?? 0;
  const page = await listBlocks(c.var.db, c.var.user.id, {
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
  setPaginationHeaders(c, page, { limit, offset });
  return c.json(page.blocks, 200);
};

export const create: Handler<"create"> = async (c) => {
  const body = c.req.valid("json");
  const databaseId = eitherSpelling<string | null>(body, "database_id", "databaseId") ?? null;
  const fields = await normalizeTypedFields(
    c.var.db,
    c.var.user.id,
    { type: body.type, databaseId },
    { properties: body.properties ?? {}, content: body.content },
  );
  const block = await createBlock(c.var.db, c.var.user.id, {
    id: body.id,
    type: body.type,
    properties: fields.properties ?? {},
    parentId: eitherSpelling(body, "parent_id", "parentId") ?? null,
    databaseId,
    teamspaceId: eitherSpelling(body, "teamspace_id", "teamspaceId") ?? null,
    content: fields.content,
    position: body.position,
  });
  return c.json(block, 201);
};

export const get: Handler<"get"> = async (c) => {
  return c.json(await getActiveBlock(c.var.db, c.var.user.id, c.req.valid("param").id), 200);
};

export const update: Handler<"update"> = async (c) => {
  const body = c.req.valid("json");
  const id = c.req.valid("param").id;
  const change = await normalizeBlockChange(c.var.db, c.var.user.id, id, {
    type: body.type,
    databaseId: eitherSpelling(body, "database_id", "databaseId"),
    properties: body.properties,
    content: body.content,
  });
  const block = await updateBlock(c.var.db, c.var.user.id, id, {
    ...change,
    parentId: eitherSpelling(body, "parent_id", "parentId"),
    teamspaceId: eitherSpelling(body, "teamspace_id", "teamspaceId"),
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
  return c.json(await listChildren(c.var.db, c.var.user.id, c.req.valid("param").id), 200);
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
  const id = c.req.valid("param").id;
  const change = await normalizeBlockChange(c.var.db, c.var.user.id, id, {
    type: body.type,
    properties: body.properties,
  });
  return c.json(await updateBlock(c.var.db, c.var.user.id, id, change), 200);
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
