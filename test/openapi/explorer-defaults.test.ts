import { describe, expect, it } from "vitest";
import { api, createUser } from "../helpers/api";
import { sessionOf } from "../helpers/cursor-matrix";

/**
 * The explorer (Swagger UI at /documentation) fills every field of Try-it from the contract: a
 * parameter from its examples, `example` or schema `example`/`default`, a JSON body from its
 * media type's or schema's example. Run with those defaults after authorizing on an empty
 * account, an operation succeeds, or fails only because of what the user has to choose: an id in
 * its path, a required parameter or a body field naming an object that an empty account lacks.
 */

interface Schema {
  $ref?: string;
  example?: unknown;
  default?: unknown;
}
interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
  content?: Record<string, { example?: unknown }>;
  schema?: Schema;
}
interface Operation {
  security?: Record<string, string[]>[];
  responses: Record<string, unknown>;
  parameters?: Parameter[];
  requestBody?: {
    content: Record<string, { example?: unknown; examples?: Record<string, { value?: unknown }>; schema?: Schema }>;
  };
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const { body: document } = await api<Document>("/documentation/openapi.json");
const schemaOf = (schema: Schema | undefined): Schema =>
  schema?.$ref ? (document.components.schemas[schema.$ref.replace("#/components/schemas/", "")] ?? {}) : (schema ?? {});

/** What Swagger UI pre-fills a parameter with (its ParameterRow's default value), undefined for nothing. */
function explorerValue(parameter: Parameter): unknown {
  const schema = schemaOf(parameter.schema);
  return (
    Object.values(parameter.examples ?? {})[0]?.value ??
    Object.values(parameter.content ?? {})[0]?.example ??
    parameter.example ??
    schema.example ??
    schema.default
  );
}

/** The JSON body Swagger UI pre-fills (undefined when it would generate one from the schema). */
function explorerBody(operation: Operation): unknown {
  const json = operation.requestBody?.content["application/json"];
  if (!json) return undefined;
  return json.example ?? Object.values(json.examples ?? {})[0]?.value ?? schemaOf(json.schema).example;
}

const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({
    name: `${method.toUpperCase()} ${path}`,
    path,
    method,
    operation,
  })),
);
const secured = operations.filter(({ operation }) => (operation.security ?? []).length > 0);
const sessionOnly = (operation: Operation) => !(operation.security ?? []).some((scheme) => "apiKeyAuth" in scheme);

/** A cursor, a search or an id used as a filter: values only the user can choose. */
const CHOSEN_QUERY = /^(cursor|q)$|(_id|Id|_ids|Ids)$/;

/**
 * Creates that an empty account cannot make whatever the example says, with the answer it gets:
 * their body names an object the user has to choose (what is commented on, mentioned, synced,
 * reminded of, a stored file), or the account lacks what they act on (a subscription).
 */
const REFUSED_ON_AN_EMPTY_ACCOUNT = new Map([
  ["POST /api/v1/comments", 404],
  ["POST /api/v1/mentions", 404],
  ["POST /api/v1/mentions/sync", 404],
  ["POST /api/v1/synced-blocks", 404],
  ["POST /api/v1/reminders", 404],
  ["POST /api/v1/media/download", 404],
  ["POST /payments/cancel-subscription", 400],
]);

/** The request Try-it sends for an operation with its defaults, authorized as `user`. */
async function tryIt(name: string, path: string, method: string, operation: Operation) {
  const user = await createUser();
  const auth = sessionOnly(operation) ? await sessionOf(user) : user.key;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const parameter of operation.parameters ?? []) {
    const value = explorerValue(parameter);
    if (value === undefined) continue;
    if (parameter.in === "query") query.set(parameter.name, String(value));
    if (parameter.in === "header") headers[parameter.name] = String(value);
  }
  const search = query.size > 0 ? `?${query}` : "";
  const response = await api(`${path}${search}`, {
    method: method.toUpperCase(),
    auth,
    headers,
    body: explorerBody(operation),
  });
  const { status } = response;
  return {
    name,
    status,
    code: (response.body as { code?: string }).code,
    declared: String(status) in operation.responses,
  };
}

describe("the explorer's defaults", () => {
  it("pre-fill no cursor, search or id filter in a query", () => {
    const prefilled = operations.flatMap(({ name, operation }) =>
      (operation.parameters ?? [])
        .filter((p) => p.in === "query" && !p.required && CHOSEN_QUERY.test(p.name) && explorerValue(p) !== undefined)
        .map((p) => `${name} ?${p.name}`),
    );
    expect(prefilled).toEqual([]);
  });

  it("pre-fill no request header (idempotency keys, entity tags and ranges are per request)", () => {
    const prefilled = operations.flatMap(({ name, operation }) =>
      (operation.parameters ?? [])
        .filter((p) => p.in === "header" && explorerValue(p) !== undefined)
        .map((p) => `${name} ${p.name}`),
    );
    expect([...new Set(prefilled.map((entry) => entry.replace(/^\S+ \S+ /, "")))]).toEqual([]);
  });

  it("of every listing and read without an id in its path answer 200 on an empty account", async () => {
    const reads = secured.filter(
      ({ path, method, operation }) =>
        method === "get" &&
        !path.includes("{") &&
        // A required parameter (ids to export, a file's path or URL) is the user's to choose.
        !(operation.parameters ?? []).some((p) => p.required),
    );
    expect(reads.length).toBeGreaterThanOrEqual(10);
    const answers = await Promise.all(reads.map((r) => tryIt(r.name, r.path, r.method, r.operation)));
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
  });

  it("of every create without an id in its path succeed on an empty account, or as an empty account must be refused", async () => {
    const creates = secured.filter(
      ({ path, method, operation }) =>
        method === "post" && !path.includes("{") && explorerBody(operation) !== undefined,
    );
    expect(creates.map(({ name }) => name)).toEqual(
      expect.arrayContaining(["POST /api/v1/pages", "POST /api/v1/blocks"]),
    );
    const answers = await Promise.all(creates.map((c) => tryIt(c.name, c.path, c.method, c.operation)));
    const wrong = answers.filter(({ name, status }) =>
      REFUSED_ON_AN_EMPTY_ACCOUNT.has(name)
        ? status !== REFUSED_ON_AN_EMPTY_ACCOUNT.get(name)
        : status < 200 || status > 299,
    );
    expect(wrong).toEqual([]);
    // What they answer, refusals included, is a response their operation declares.
    expect(answers.filter((answer) => !answer.declared)).toEqual([]);
  });
});

describe("the explorer", () => {
  it("keeps the pasted key across reloads (persistAuthorization)", async () => {
    const page = await api<string>("/documentation");
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/persistAuthorization:\s*true/);
  });

  it("says in its intro that listings page by cursor and what Try-it needs", async () => {
    const { body } = await api<{ info: { description: string } }>("/documentation/openapi.json");
    expect(body.info.description).toContain("`X-Next-Cursor`");
    expect(body.info.description).toContain("npm run key");
    expect(body.info.description).toContain("An id in a path");
  });
});
