import { type Schema, Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { api } from "../helpers/api";

interface OpenApiDocument {
  openapi: string;
  info: { version: string };
  components: { securitySchemes: Record<string, Record<string, string>>; schemas: Record<string, unknown> };
  paths: Record<string, Record<string, OperationObject>>;
}
interface OperationObject {
  operationId?: string;
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}

const HTTP_METHODS = ["get", "post", "put", "patch", "delete"];

describe("OpenAPI contract", () => {
  it("is OpenAPI 3.1, version 1.0.0, with both security schemes", async () => {
    const res = await api<OpenApiDocument>("/documentation/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    expect(res.body.info.version).toBe("1.0.0");
    expect(res.body.components.securitySchemes).toEqual({
      apiKeyAuth: expect.objectContaining({ type: "apiKey", in: "header", name: "Authorization" }),
      bearerAuth: expect.objectContaining({ type: "http", scheme: "bearer", bearerFormat: "JWT" }),
    });
  });

  it("documents every /api/v1 operation with security, a success schema and the error schema", async () => {
    const { body } = await api<OpenApiDocument>("/documentation/openapi.json");
    const operations = Object.entries(body.paths).flatMap(([path, item]) =>
      HTTP_METHODS.filter((method) => item[method]).map((method) => ({
        path,
        method,
        op: item[method] as OperationObject,
      })),
    );
    const v1 = operations.filter((o) => o.path.startsWith("/api/v1/"));
    expect(v1.length).toBeGreaterThanOrEqual(13);
    for (const { path, method, op } of v1) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.operationId, where).toBeTruthy();
      // API-key management takes an app session only; everything else either credential.
      const security = path.startsWith("/api/v1/api-keys")
        ? [{ bearerAuth: [] }]
        : [{ apiKeyAuth: [] }, { bearerAuth: [] }];
      expect(op.security, where).toEqual(security);
      const success = Object.entries(op.responses).find(([status]) => status.startsWith("2"));
      const successSchemas = Object.values(success?.[1].content ?? {}).map((media) => media.schema);
      expect(successSchemas.length, where).toBeGreaterThan(0);
      for (const schema of successSchemas) expect(schema, where).toBeDefined();
      expect(op.responses["401"]?.content?.["application/json"]?.schema, where).toEqual({
        $ref: "#/components/schemas/Error",
      });
      // Actions that take nothing but their path (trash, restore, propagate...) declare an empty body.
      if (["post", "patch", "put"].includes(method)) {
        expect(op.requestBody?.content["application/json"]?.schema, where).toBeDefined();
      }
    }
  });

  it("a page's request content takes what the server takes: null (an empty body) or canonical items", async () => {
    const { body } = await api<OpenApiDocument>("/documentation/openapi.json");
    for (const name of ["CreatePageRequest", "UpdatePageRequest"]) {
      const schema = body.components.schemas[name] as Schema;
      expect(schema.properties?.content, name).toMatchObject({ items: { $ref: "#/components/schemas/ContentItem" } });
      // The items' reference is left unresolved: neither value below reaches it.
      const validator = new Validator(schema, "2020-12");
      expect(validator.validate({ content: null }).valid, name).toBe(true);
      expect(validator.validate({ content: "text" }).valid, name).toBe(false);
    }
  });

  it("every POST, PUT and PATCH declares a request body schema, so it is held to a body's rules", async () => {
    const { body } = await api<OpenApiDocument>("/documentation/openapi.json");
    const lacking = Object.entries(body.paths).flatMap(([path, item]) =>
      ["post", "put", "patch"]
        .filter((method) => item[method])
        .filter((method) => {
          const media = Object.values(item[method]?.requestBody?.content ?? {});
          return media.length === 0 || media.some((type) => type.schema === undefined);
        })
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(lacking).toEqual([]);
  });

  it("lists all thirteen Blocks operations", async () => {
    const { body } = await api<OpenApiDocument>("/documentation/openapi.json");
    const ids = Object.values(body.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(ids).toEqual(
      expect.arrayContaining([
        "listBlocks",
        "createBlock",
        "getBlock",
        "updateBlock",
        "deleteBlock",
        "listBlockChildren",
        "getBlockHierarchy",
        "duplicateBlock",
        "convertBlock",
        "archiveBlock",
        "trashBlock",
        "restoreBlock",
        "moveBlock",
      ]),
    );
  });
});

describe("examples for the explorer", () => {
  interface SchemaObject {
    example?: unknown;
    examples?: unknown[];
    type?: string;
    properties?: Record<
      string,
      SchemaObject & { $ref?: string; items?: { $ref?: string }; anyOf?: { $ref?: string }[] }
    >;
  }

  it("every component schema carries an example, whole or on each of its own fields", async () => {
    const { body } = await api<{ components: { schemas: Record<string, SchemaObject> } }>(
      "/documentation/openapi.json",
    );
    const lacking = Object.entries(body.components.schemas).flatMap(([name, schema]) => {
      if (schema.example !== undefined || schema.type !== "object" || !schema.properties) return [];
      return (
        Object.entries(schema.properties)
          // A reference (also a nullable one, `anyOf` [$ref, null]) shows its component's example.
          .filter(
            ([, field]) =>
              field.example === undefined &&
              !field.$ref &&
              !field.items?.$ref &&
              !field.anyOf?.some((part) => part.$ref),
          )
          .map(([field]) => `${name}.${field}`)
      );
    });
    expect(lacking).toEqual([]);
  });

  it("no nullable field is written allOf [$ref, null], which a null could never match", async () => {
    const { body } = await api("/documentation/openapi.json");
    const text = JSON.stringify(body);
    const nullableRefs = [...text.matchAll(/"allOf":\[\{"\$ref":"[^"]+"\},\{"type":\[[^\]]*"null"/g)];
    expect(nullableRefs.map((match) => match[0])).toEqual([]);
  });

  it("no query or path parameter claims to take null (a URL cannot send one)", async () => {
    const { body } = await api<{
      paths: Record<string, Record<string, { parameters?: { name: string; schema?: { type?: unknown } }[] }>>;
    }>("/documentation/openapi.json");
    const nullable = Object.entries(body.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, operation]) =>
        (operation.parameters ?? [])
          .filter((parameter) => JSON.stringify(parameter.schema?.type ?? "").includes("null"))
          .map((parameter) => `${method} ${path} ${parameter.name}`),
      ),
    );
    expect(nullable).toEqual([]);
  });

  // A value the user has to choose (a cursor, a search, an id filter, a per-request header) shows
  // its form as a JSON Schema example, which the explorer does not pre-fill (explorer-defaults.test.ts).
  it("every parameter carries an example (pre-filled, or a JSON Schema example for values the user chooses)", async () => {
    const { body } = await api<{
      paths: Record<
        string,
        Record<string, { parameters?: { name: string; example?: unknown; schema?: SchemaObject }[] }>
      >;
    }>("/documentation/openapi.json");
    const lacking = Object.entries(body.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, operation]) =>
        (operation.parameters ?? [])
          // The request headers every operation takes are references, with no example: Try-it would send it.
          .filter((parameter) => !("$ref" in parameter))
          .filter(
            (parameter) =>
              parameter.example === undefined &&
              parameter.schema?.example === undefined &&
              (parameter.schema?.examples ?? []).length === 0,
          )
          .map((parameter) => `${method} ${path} ${parameter.name}`),
      ),
    );
    expect(lacking).toEqual([]);
  });

  // The explorer and the generated clients show a parameter's description as its only help.
  it("every parameter says what it is (a non-empty description)", async () => {
    const { body } = await api<{
      paths: Record<string, Record<string, { parameters?: { name?: string; $ref?: string; description?: string }[] }>>;
      components: { parameters?: Record<string, { name: string; description?: string }> };
    }>("/documentation/openapi.json");
    const lacking = Object.entries(body.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, operation]) =>
        (operation.parameters ?? [])
          .map((parameter) =>
            parameter.$ref
              ? body.components.parameters?.[parameter.$ref.replace("#/components/parameters/", "")]
              : parameter,
          )
          .filter((parameter) => !parameter?.description?.trim())
          .map((parameter) => `${method} ${path} ${parameter?.name}`),
      ),
    );
    expect(lacking).toEqual([]);
  });
});

describe("API explorer", () => {
  it("serves the explorer page pointing at this Worker's own assets and contract", async () => {
    const res = await api<string>("/documentation");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("text/html");
    expect(res.body).toContain('src="/documentation/assets/swagger-ui-dist/swagger-ui-bundle.js"');
    expect(res.body).toContain('href="/documentation/assets/swagger-ui-dist/swagger-ui.css"');
    expect(res.body).toContain("/documentation/openapi.json");
    expect(res.body).not.toMatch(/https?:\/\/(cdn|unpkg)/);
  });

  it("serves the explorer's script and stylesheet itself, and nothing else from the package", async () => {
    const script = await api<string>("/documentation/assets/swagger-ui-dist/swagger-ui-bundle.js");
    expect(script.status).toBe(200);
    expect(script.body).toContain("SwaggerUIBundle");
    const css = await api<string>("/documentation/assets/swagger-ui-dist/swagger-ui.css");
    expect(css.status).toBe(200);
    expect(css.body).toContain(".swagger-ui");
    const other = await api("/documentation/assets/swagger-ui-dist/package.json");
    expect(other.status).toBe(404);
  });
});
