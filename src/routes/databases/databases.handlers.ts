import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../lib/context";
import { setPaginationHeaders } from "../../openapi/responses";
import { queryRows as runRowQuery } from "../../services/databases/row-query";
import { presentRow } from "../../services/databases/rows";
import * as commands from "../../services/databases/schema-commands";
import { loadDatabaseSchema } from "../../services/databases/schema-records";
import type * as routes from "./databases.routes";

type Handler<R extends keyof typeof routes> = RouteHandler<(typeof routes)[R], AppEnv>;

export const getSchema: Handler<"getSchema"> = async (c) => {
  const schema = await loadDatabaseSchema(c.var.db, c.var.user.id, c.req.valid("param").id);
  return c.json({ database_id: schema.databaseId, legacy: schema.legacy, properties: schema.properties }, 200);
};

export const addProperty: Handler<"addProperty"> = async (c) => {
  const property = await commands.addProperty(c.var.db, c.var.user.id, c.req.valid("param").id, c.req.valid("json"));
  return c.json(property, 201);
};

export const updateProperty: Handler<"updateProperty"> = async (c) => {
  const { id, property_id } = c.req.valid("param");
  return c.json(await commands.updateProperty(c.var.db, c.var.user.id, id, property_id, c.req.valid("json")), 200);
};

export const removeProperty: Handler<"removeProperty"> = async (c) => {
  const { id, property_id } = c.req.valid("param");
  await commands.removeProperty(c.var.db, c.var.user.id, id, property_id);
  return c.json({ success: true, message: "Property removed" }, 200);
};

export const addOption: Handler<"addOption"> = async (c) => {
  const { id, property_id } = c.req.valid("param");
  return c.json(await commands.addOption(c.var.db, c.var.user.id, id, property_id, c.req.valid("json")), 201);
};

export const updateOption: Handler<"updateOption"> = async (c) => {
  const { id, property_id, option_id } = c.req.valid("param");
  const option = await commands.updateOption(c.var.db, c.var.user.id, id, property_id, option_id, c.req.valid("json"));
  return c.json(option, 200);
};

export const removeOption: Handler<"removeOption"> = async (c) => {
  const { id, property_id, option_id } = c.req.valid("param");
  await commands.removeOption(c.var.db, c.var.user.id, id, property_id, option_id);
  return c.json({ success: true, message: "Option removed" }, 200);
};

export const queryRows: Handler<"queryRows"> = async (c) => {
  const body = c.req.valid("json") ?? {};
  const schema = await loadDatabaseSchema(c.var.db, c.var.user.id, c.req.valid("param").id);
  const page = await runRowQuery(c.var.db, c.var.user.id, schema, {
    filters: body.filters ?? [],
    sorts: (body.sorts ?? []).map((sort) => ({ property: sort.property, direction: sort.direction ?? "asc" })),
    limit: body.limit ?? 50,
    offset: body.offset ?? 0,
  });
  setPaginationHeaders(c, page, { limit: body.limit ?? 50, offset: body.offset ?? 0 });
  return c.json(
    page.records.map((record) => presentRow(schema, record)),
    200,
  );
};
