import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../helpers/api";
import { expectErrorBody } from "../helpers/auth-matrix";
import { signSessionToken } from "../helpers/session-token";
import { type FakedThirdParties, fakeThirdParties } from "../helpers/third-party";

// Every write operation of the contract that takes a user's credential declares `Idempotency-Key`
// and its answers (draft-ietf-httpapi-idempotency-key-header), and takes the header: a malformed
// key is a 400 naming it, and a well-formed one is either replayed (after a 2xx) or freed (after a
// refusal that wrote nothing), never run twice.

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: { type?: string; example?: unknown; examples?: unknown[] };
  example?: unknown;
  description?: string;
}
interface Operation {
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  responses: Record<string, { description: string; headers?: Record<string, unknown>; content?: unknown }>;
}

const WRITE_METHODS = ["post", "put", "patch", "delete"] as const;
const DRAFT = "draft-ietf-httpapi-idempotency-key-header";

/**
 * Writes of a user that take no key, each on purpose (defineRoute's `idempotencyKey: false`): MCP's
 * JSON-RPC messages carry their own ids, and its one POST carries reads and writes alike; a sign-out
 * ends the session a retry would be sent with, so there is never an answer to replay.
 */
const WITHOUT_KEY = ["POST /mcp", "POST /auth/sign-out"];

const document = await api<{ paths: Record<string, Partial<Record<string, Operation>>> }>(
  "/documentation/openapi.json",
);
const writes = Object.entries(document.body.paths).flatMap(([path, item]) =>
  WRITE_METHODS.flatMap((method) => {
    const operation = item[method];
    const name = `${method.toUpperCase()} ${path}`;
    return operation && (operation.security ?? []).length > 0 && !WITHOUT_KEY.includes(name)
      ? [{ name, path, method, operation }]
      : [];
  }),
);
const others = Object.entries(document.body.paths).flatMap(([path, item]) =>
  Object.entries(item).flatMap(([method, operation]) =>
    operation && !writes.some((write) => write.path === path && write.method === method)
      ? [{ name: `${method.toUpperCase()} ${path}`, operation }]
      : [],
  ),
);

const parameterOf = (operation: Operation) =>
  operation.parameters?.find((p) => p.in === "header" && p.name === "Idempotency-Key");

/** A concrete URL for a templated path: every parameter filled with an id nobody owns. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000");

let user: TestUser;
let session: string;
let faked: FakedThirdParties;
beforeAll(async () => {
  user = await createUser();
  session = await signSessionToken({ sub: user.id, exp: Math.floor(Date.now() / 1000) + 600 });
  // No third party is reached for real: any that is called fails.
  faked = fakeThirdParties(() => new Response("unavailable in this test", { status: 503 }));
});
afterAll(() => faked.restore());

/** The credential an operation takes: an API key, or an app session where only that is allowed. */
const credentialFor = (operation: Operation) =>
  (operation.security ?? []).some((scheme) => "apiKeyAuth" in scheme) ? user.key : session;

describe("every write operation of a user's credential", () => {
  it("is walked: the contract has them", () => {
    expect(writes.length).toBeGreaterThan(40);
  });

  it.each(writes.map(({ name, operation }) => [name, operation]))(
    "%s declares Idempotency-Key, Idempotent-Replayed (with an example) on its own answers, the 409 and the 422",
    (_name, operation) => {
      const parameter = parameterOf(operation);
      expect(parameter).toBeDefined();
      expect(parameter?.required ?? false).toBe(false);
      expect(parameter?.description).toContain(DRAFT);
      // Shown as a JSON Schema example, which the explorer does not pre-fill: each request needs its own key.
      expect(parameter?.example ?? parameter?.schema?.example).toBeUndefined();
      expect(parameter?.schema?.examples).toEqual(['"8e03978e-40d5-43e8-bc93-6894a57f9324"']);
      const statuses = Object.keys(operation.responses);
      const successes = statuses.filter((status) => /^2\d\d$/.test(status));
      expect(successes.length).toBeGreaterThan(0);
      // Every answer of the operation's own may be a replay (a 2xx, or an error after a write landed);
      // the key's own 409 and 422 never are.
      for (const status of statuses.filter((status) => status !== "409" && status !== "422")) {
        const replayed = operation.responses[status]?.headers?.["Idempotent-Replayed"] as
          | { schema?: { example?: unknown }; description?: string }
          | undefined;
        expect(replayed?.schema?.example, status).toBe("true");
        expect(replayed?.description, status).toContain("an error replayed carries it too");
      }
      for (const status of ["409", "422"]) {
        expect(operation.responses[status]?.description, status).toContain(DRAFT);
        expect(JSON.stringify(operation.responses[status]?.content), status).toContain("idempotency_");
      }
      expect(operation.responses["409"]?.description).toContain("idempotency_in_progress");
      expect(operation.responses["409"]?.headers).toMatchObject({ "Retry-After": { schema: { example: 1 } } });
      expect(operation.responses["422"]?.description).toContain("idempotency_key_reused");
      expect(operation.responses["400"]?.description).toContain("Idempotency-Key");
    },
  );

  it.each(writes.map(({ name, path, method, operation }) => [name, path, method, operation]))(
    "%s takes the header: a malformed key is a 400 naming it; a retry of a well-formed one is a replay or runs as before",
    async (_name, path, method, operation) => {
      const auth = credentialFor(operation);
      const body = method === "delete" ? undefined : {};
      const send = (key: string) =>
        api(concrete(path), { method: method.toUpperCase(), auth, body, headers: { "Idempotency-Key": key } });

      const malformed = await send('"no-closing-quote');
      expectErrorBody(malformed, 400);
      expect(malformed.body).toMatchObject({ code: "validation_failed", details: { header: "Idempotency-Key" } });

      const key = `"${crypto.randomUUID()}"`;
      const first = await send(key);
      expect(first.body, JSON.stringify(first.body)).not.toMatchObject({ details: { header: "Idempotency-Key" } });
      const retry = await send(key);
      const keepsResponses = !parameterOf(operation)?.description?.includes("never stored");
      if (first.status >= 200 && first.status < 300 && !keepsResponses) {
        // A secret shown once: never stored, never run again.
        expect(retry.body).toMatchObject({ code: "idempotency_replay_unavailable" });
      } else if (first.status >= 200 && first.status < 300) {
        expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
        expect(retry.status).toBe(first.status);
        expect(retry.body).toEqual(first.body);
      } else {
        // Refused without a write: the key was freed, and the retry ran as the first did.
        expect(retry.headers.get("Idempotent-Replayed")).toBeNull();
        expect(retry.status).toBe(first.status);
      }
    },
  );
});

describe("operations that are not a user's write, or opt out", () => {
  it("declare no Idempotency-Key", () => {
    expect(others.map(({ name }) => name)).toEqual(expect.arrayContaining(WITHOUT_KEY));
    for (const { name, operation } of others) {
      expect((operation as Operation).parameters?.some((p) => p.name === "Idempotency-Key") ?? false, name).toBe(false);
    }
  });
});
