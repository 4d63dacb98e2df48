import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../helpers/api";
import { expectErrorBody } from "../helpers/auth-matrix";
import { type ContractOperation, concrete, contractOperations, securedOf } from "../helpers/contract";
import { sessionOf } from "../helpers/cursor-matrix";
import { type FakedThirdParties, fakeThirdParties } from "../helpers/third-party";

// RFC 9110 §13.1.1: the server MUST NOT perform the method when If-Match is false. A write of
// something with no entity tag (a comment, a mention, an API key...; a creation, whose target is the
// collection) can match no listed tag: each such operation of the contract declares its If-Match and
// 412, and answers a listed tag with 412 `precondition_failed` and no ETag, `*` as if it were absent,
// a malformed field with 400, and no credential with 401 first.

interface Parameter {
  name: string;
  in: string;
  description?: string;
}
type Operation = ContractOperation & {
  parameters?: Parameter[];
  responses: Record<string, { description?: string }>;
};

const WRITE_METHODS = new Set(["post", "put", "patch", "delete"]);

/** A user's writes with HTTP's write semantics: those taking an Idempotency-Key (not MCP's JSON-RPC POST). */
const writes = securedOf(await contractOperations()).filter(
  ({ method, operation }) =>
    WRITE_METHODS.has(method) &&
    (operation as Operation).parameters?.some((p) => p.in === "header" && p.name === "Idempotency-Key"),
);
/** The writes whose 412 carries no ETag: their resource has none. */
const tagless = writes.filter(({ operation }) => operation.responses["412"]?.headers?.ETag === undefined);

let user: TestUser;
let session: string;
let faked: FakedThirdParties;
beforeAll(async () => {
  user = await createUser();
  session = await sessionOf(user);
  // No third party is reached for real: any that is called fails.
  faked = fakeThirdParties(() => new Response("unavailable in this test", { status: 503 }));
});
afterAll(() => faked.restore());

/** The credential an operation takes: an API key, or an app session where only that is allowed. */
const credentialFor = (operation: Operation) =>
  (operation.security ?? []).some((scheme) => "apiKeyAuth" in scheme) ? user.key : session;

const send = (path: string, method: string, auth: string | undefined, ifMatch: string) =>
  api<{ code?: string; details?: Record<string, unknown> }>(concrete(path), {
    method: method.toUpperCase(),
    auth,
    body: method === "delete" ? undefined : {},
    headers: { "If-Match": ifMatch },
  });

describe("writes of resources without an entity tag (RFC 9110 §13.1.1)", () => {
  it("are walked: every write of a user declares a 412, and these are the ones without ETag", () => {
    for (const { name, operation } of writes) expect(operation.responses["412"], name).toBeDefined();
    expect(tagless.length).toBeGreaterThan(30);
    const names = tagless.map(({ name }) => name);
    for (const name of [
      "PATCH /api/v1/comments/{id}",
      "DELETE /api/v1/comments/{id}",
      "PATCH /api/v1/mentions/{id}",
      "DELETE /api/v1/api-keys/{id}",
      "DELETE /api/v1/push-subscriptions/{id}",
      "POST /api/v1/blocks",
      "POST /api/v1/media/upload",
    ]) {
      expect(names).toContain(name);
    }
  });

  it.each(tagless.map(({ name, operation }) => [name, operation as Operation]))(
    "%s declares If-Match and the 412 of a listed tag",
    (_name, operation) => {
      const parameter = operation.parameters?.find((p) => p.in === "header" && p.name === "If-Match");
      expect(parameter?.description).toContain("no entity tag");
      expect(operation.responses["412"]?.description).toMatch(/^Precondition Failed \(RFC 9110 §13\.1\.1/);
    },
  );

  it.each(tagless.map(({ name, path, method, operation }) => [name, path, method, operation as Operation]))(
    "%s: a listed tag is a 412 without ETag; * goes on; malformed is a 400; no credential is a 401 first",
    async (_name, path, method, operation) => {
      const auth = credentialFor(operation);
      for (const ifMatch of ['"stale"', 'W/"weak", "other"']) {
        const refused = await send(path, method, auth, ifMatch);
        expectErrorBody(refused, 412);
        expect(refused.body.code).toBe("precondition_failed");
        expect(refused.body.details).toEqual({ header: "If-Match" });
        expect(refused.headers.get("ETag")).toBeNull();
      }
      const malformed = await send(path, method, auth, "stale");
      expectErrorBody(malformed, 400);
      expect(malformed.body.details).toMatchObject({ header: "If-Match" });
      expect((await send(path, method, auth, "*")).status).not.toBe(412);
      expect((await send(path, method, undefined, '"stale"')).status).toBe(401);
    },
  );
});
