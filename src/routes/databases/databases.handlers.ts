import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import type { Handler } from "../../openapi/define-route";
import { answerTagged, preconditionsOf, tagAnswer } from "../../openapi/entity-tags";
import { createRows as createRowsInBatch } from "../../services/block-writes/rows-batch";
import { queryRows as runRowQuery } from "../../services/databases/row-query";
import * as commands from "../../services/databases/schema-commands";
import { loadDatabaseSchema, schemaValidator } from "../../services/databases/schema-records";
import type * as routes from "./databases.routes";
import { batchRowInputs } from "./databases.schemas";

export const getSchema: Handler<typeof routes.getSchema> = async (c) => {
  const schema = await loadDatabaseSchema(c.get("ctx"), c.req.valid("param").id);
  const body = { database_id: schema.databaseId, legacy: schema.legacy, properties: schema.properties };
  return answerTagged(c, body, 200, schemaValidator(schema));
};

// Schema changes are held to the schema's tag (If-Match) and answer its new one.

export const addProperty: Handler<typeof routes.addProperty> = async (c) => {
  const { id } = c.req.valid("param");
  const { result, schema } = await commands.addProperty(c.get("ctx"), id, c.req.valid("json"), preconditionsOf(c));
  return answerTagged(c, result, 201, schema);
};

export const updateProperty: Handler<typeof routes.updateProperty> = async (c) => {
  const { id, property_id } = c.req.valid("param");
  const change = c.req.valid("json");
  const { result, schema } = await commands.updateProperty(c.get("ctx"), id, property_id, change, preconditionsOf(c));
  return answerTagged(c, result, 200, schema);
};

export const removeProperty: Handler<typeof routes.removeProperty> = async (c) => {
  const { id, property_id } = c.req.valid("param");
  const { schema } = await commands.removeProperty(c.get("ctx"), id, property_id, preconditionsOf(c));
  tagAnswer(c, schema);
  return c.json({ success: true, message: "Property removed" }, 200);
};

export const addOption: Handler<typeof routes.addOption> = async (c) => {
  const { id, property_id } = c.req.valid("param");
  const option = c.req.valid("json");
  const { result, schema } = await commands.addOption(c.get("ctx"), id, property_id, option, preconditionsOf(c));
  return answerTagged(c, result, 201, schema);
};

export const updateOption: Handler<typeof routes.updateOption> = async (c) => {
  const { id, property_id, option_id } = c.req.valid("param");
  const change = c.req.valid("json");
  const preconditions = preconditionsOf(c);
  const { result, schema } = await commands.updateOption(
    c.get("ctx"),
    id,
    property_id,
    option_id,
    change,
    preconditions,
  );
  return answerTagged(c, result, 200, schema);
};

export const removeOption: Handler<typeof routes.removeOption> = async (c) => {
  const { id, property_id, option_id } = c.req.valid("param");
  const { schema } = await commands.removeOption(c.get("ctx"), id, property_id, option_id, preconditionsOf(c));
  tagAnswer(c, schema);
  return c.json({ success: true, message: "Option removed" }, 200);
};

export const queryRows: Handler<typeof routes.queryRows> = async (c) => {
  const body = c.req.valid("json") ?? {};
  const window = pageWindow(body);
  const page = await runRowQuery(c.get("ctx"), c.req.valid("param").id, {
    ...window,
    filters: body.filters ?? [],
    sorts: body.sorts ?? [],
    cursor: body.cursor,
  });
  setPaginationHeaders(c, page, window);
  if (page.nextCursor) c.header("X-Next-Cursor", page.nextCursor);
  return c.json(page.items, 200);
};

export const createRows: Handler<typeof routes.createRows> = async (c) => {
  // Each row's shape is checked here rather than by the route, so that one 400 lists every
  // row at fault, whether its shape or its values are wrong (the service checks the values).
  const rows = batchRowInputs(c.req.valid("json").rows);
  return c.json(await createRowsInBatch(c.get("ctx"), c.req.valid("param").id, rows), 201);
};
