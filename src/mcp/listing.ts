import { OpenAPIHono } from "@hono/zod-openapi";
import type { ListToolsResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ApiKeyScope } from "../auth/scopes";
import { BatchRowSchema } from "../routes/databases/databases.schemas";
import { ContentItemSchema } from "../services/content/schema";
import type { ToolDefinition } from "./tool";

// tools/list: each tool's input schema is written by the generator that writes the contract, from
// the same zod schemas, so a tool's parameters carry the descriptions and examples the REST
// operations carry. What the generator writes is OpenAPI 3.1's dialect of JSON Schema; a tool's
// inputSchema is JSON Schema 2020-12 (MCP 2025-11-25, Tools): the components it refers to become
// its `$defs`, and the OpenAPI `example` keyword becomes `examples`.

type JsonSchema = Record<string, unknown>;

/** Components request bodies name by hand (`$ref`) rather than through a zod schema, as the contract registers them. */
const REFERENCED_COMPONENTS = { ContentItem: ContentItemSchema, DatabaseRowInput: BatchRowSchema };

const COMPONENT_REF = /^#\/components\/schemas\/(.+)$/;

/** Keywords whose value is a schema, a list of schemas, or a map of names to schemas. */
const SUBSCHEMA = new Set(["items", "not", "additionalProperties", "contains", "propertyNames", "if", "then", "else"]);
const SUBSCHEMA_LISTS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
const SUBSCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs"]);

/** `schema` in JSON Schema 2020-12 terms; the components it refers to are added to `refs`. Values (enum, default, examples) are kept as they are. */
function asJsonSchema(schema: unknown, refs: Set<string>): unknown {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
  const result: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$ref" && typeof value === "string") {
      const name = COMPONENT_REF.exec(value)?.[1];
      if (name) refs.add(name);
      result.$ref = name ? `#/$defs/${name}` : value;
    } else if (key === "example") {
      result.examples = [value];
    } else if (SUBSCHEMA.has(key)) {
      result[key] = asJsonSchema(value, refs);
    } else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) {
      result[key] = value.map((item) => asJsonSchema(item, refs));
    } else if (SUBSCHEMA_MAPS.has(key) && typeof value === "object" && value !== null) {
      result[key] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, asJsonSchema(item, refs)]));
    } else {
      result[key] = value;
    }
  }
  return result;
}

/** One tool's inputSchema: its component, with every component it reaches (transitively) as `$defs`. */
function inputSchema(name: string, components: Record<string, unknown>): Tool["inputSchema"] {
  const refs = new Set<string>();
  const schema = asJsonSchema(components[name], refs) as JsonSchema;
  const defs: JsonSchema = {};
  for (const ref of refs) {
    if (!(ref in components)) throw new Error(`Tool ${name}: its schema refers to the unknown component ${ref}`);
    defs[ref] = asJsonSchema(components[ref], refs);
  }
  return { ...schema, ...(refs.size > 0 ? { $defs: defs } : {}) } as Tool["inputSchema"];
}

/** Every tool as tools/list describes it, written once per isolate. */
function describeTools(tools: readonly ToolDefinition[]): Map<string, Tool> {
  const generator = new OpenAPIHono();
  for (const [name, schema] of Object.entries(REFERENCED_COMPONENTS)) generator.openAPIRegistry.register(name, schema);
  for (const tool of tools) generator.openAPIRegistry.register(tool.name, tool.input);
  const document = generator.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "MCP tools", version: "1" } });
  const components = (document.components?.schemas ?? {}) as Record<string, unknown>;
  return new Map(
    tools.map((tool) => [
      tool.name,
      {
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: inputSchema(tool.name, components),
        annotations: { title: tool.title, ...tool.annotations },
      },
    ]),
  );
}

let described: { tools: readonly ToolDefinition[]; listing: Map<string, Tool> } | undefined;

/** tools/list for a credential: the tools its scopes allow, and only those. */
export function toolListing(tools: readonly ToolDefinition[], scopes: readonly ApiKeyScope[]): ListToolsResult {
  if (described?.tools !== tools) described = { tools, listing: describeTools(tools) };
  const listing = described.listing;
  return {
    tools: tools.filter((tool) => scopes.includes(tool.scope)).map((tool) => listing.get(tool.name) as Tool),
  };
}
