/**
 * The parts of an OpenAPI 3.1 document the fuzzer reads: every operation with its
 * parameters, security and request body, and JSON Schema nodes with `$ref` resolved.
 */

export interface SchemaObject {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  additionalProperties?: boolean | SchemaObject;
  items?: SchemaObject;
  anyOf?: SchemaObject[];
  oneOf?: SchemaObject[];
  allOf?: SchemaObject[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  example?: unknown;
  examples?: unknown[];
  default?: unknown;
}

export interface ParameterObject {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema?: SchemaObject;
  example?: unknown;
}

interface OperationObject {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: ParameterObject[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: SchemaObject }> };
}

export interface OpenApiDocument {
  openapi: string;
  security?: Record<string, string[]>[];
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, SchemaObject> };
}

export interface Operation {
  /** operationId, or `METHOD path` when the document has none. */
  id: string;
  method: string;
  /** The templated path, e.g. `/api/v1/blocks/{id}`. */
  path: string;
  /** True when the operation (or the document) declares a non-empty security requirement. */
  secured: boolean;
  pathParams: ParameterObject[];
  queryParams: ParameterObject[];
  headerParams: ParameterObject[];
  body?: { required: boolean; contentTypes: string[]; schema?: SchemaObject };
}

const METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"];

export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const shared = (item as { parameters?: ParameterObject[] }).parameters ?? [];
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const parameters = [...shared, ...(op.parameters ?? [])];
      const security = op.security ?? doc.security ?? [];
      const content = op.requestBody?.content ?? {};
      const contentTypes = Object.keys(content);
      const json = contentTypes.find((type) => type.includes("json"));
      operations.push({
        id: op.operationId ?? `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        secured: security.some((requirement) => Object.keys(requirement).length > 0),
        // Path parameters in the order they appear in the path: an option id resolves
        // within its property, a property within its database.
        pathParams: parameters
          .filter((p) => p.in === "path")
          .sort((a, b) => path.indexOf(`{${a.name}}`) - path.indexOf(`{${b.name}}`)),
        queryParams: parameters.filter((p) => p.in === "query"),
        headerParams: parameters.filter((p) => p.in === "header" && p.name.toLowerCase() !== "authorization"),
        ...(op.requestBody
          ? {
              body: {
                required: op.requestBody.required ?? false,
                contentTypes,
                schema: json ? content[json]?.schema : undefined,
              },
            }
          : {}),
      });
    }
  }
  return operations;
}

/** Follows `$ref` (local `#/components/schemas/...` only) until a schema without one. */
export function makeResolver(doc: OpenApiDocument) {
  return function resolve(schema: SchemaObject | undefined): SchemaObject {
    let current = schema ?? {};
    for (let hops = 0; current.$ref && hops < 32; hops++) {
      const name = current.$ref.replace("#/components/schemas/", "");
      current = doc.components?.schemas?.[name] ?? {};
    }
    return current;
  };
}

export type Resolve = ReturnType<typeof makeResolver>;

/** The types a schema allows, `null` included. */
export function typesOf(schema: SchemaObject): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (schema.type) return [schema.type];
  if (schema.properties) return ["object"];
  if (schema.items) return ["array"];
  return [];
}

/**
 * Every string value the document names for a property or parameter of a given name
 * (enums and examples), so that a valid-ish `type` or `format` is drawn from the words
 * the API knows rather than from random text.
 */
export function vocabularyOf(doc: OpenApiDocument): Map<string, string[]> {
  const words = new Map<string, Set<string>>();
  const add = (key: string, value: unknown) => {
    if (typeof value !== "string") return;
    let set = words.get(key);
    if (!set) {
      set = new Set();
      words.set(key, set);
    }
    set.add(value);
  };
  const seen = new Set<unknown>();
  const visit = (schema: SchemaObject | undefined, key: string | undefined) => {
    if (!schema || typeof schema !== "object" || seen.has(schema)) return;
    seen.add(schema);
    if (key) {
      for (const value of schema.enum ?? []) add(key, value);
      add(key, schema.example);
      for (const value of schema.examples ?? []) add(key, value);
    }
    for (const [name, child] of Object.entries(schema.properties ?? {})) visit(child, name);
    for (const child of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) visit(child, key);
    if (schema.items) visit(schema.items, key);
    if (typeof schema.additionalProperties === "object") visit(schema.additionalProperties, undefined);
  };
  for (const schema of Object.values(doc.components?.schemas ?? {})) visit(schema, undefined);
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      for (const parameter of op.parameters ?? []) visit(parameter.schema, parameter.name);
      for (const media of Object.values(op.requestBody?.content ?? {})) visit(media.schema, undefined);
    }
  }
  return new Map([...words].map(([key, set]) => [key, [...set].sort()]));
}
