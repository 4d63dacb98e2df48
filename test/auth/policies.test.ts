import { describe, expect, it } from "vitest";
import {
  INTERNAL_BLOCK_TYPE,
  refuseInternalBlockType,
  requireAuthor,
  requireOwner,
  requireSession,
} from "../../src/auth/policies";
import type { Actor } from "../../src/lib/context";
import { ApiError } from "../../src/lib/errors";

const viaKey: Actor = { userId: "u1", via: "api_key", apiKeyId: "k1", scopes: ["read", "write"] };
const viaSession: Actor = { userId: "u1", via: "session", apiKeyId: null, scopes: ["read", "write"] };

function refusal(check: () => void): ApiError {
  try {
    check();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error("expected a refusal");
}

describe("requireSession", () => {
  it("lets an app session through and refuses an API key with a 403", () => {
    expect(() => requireSession(viaSession)).not.toThrow();
    const error = refusal(() => requireSession(viaKey));
    expect(error.status).toBe(403);
    expect(error.body).toMatchObject({ code: "forbidden", details: { authenticated_with: "api_key" } });
  });
});

describe("requireAuthor", () => {
  it("lets the author through, however they authenticated", () => {
    expect(() => requireAuthor(viaKey, { created_by: "u1" })).not.toThrow();
    expect(() => requireAuthor(viaSession, { created_by: "u1" })).not.toThrow();
  });

  it("refuses anyone else, and a record without an author, with a 403 naming the object", () => {
    expect(refusal(() => requireAuthor(viaKey, { created_by: "u2" }, "comment")).message).toBe(
      "Only the author of this comment may change it",
    );
    expect(refusal(() => requireAuthor(viaKey, { created_by: null })).status).toBe(403);
  });
});

describe("requireOwner", () => {
  it("lets the owner through and refuses others and shared objects (which have no owner)", () => {
    expect(() => requireOwner(viaKey, { created_by: "u1" })).not.toThrow();
    expect(refusal(() => requireOwner(viaKey, { created_by: "u2" }, "key")).message).toBe(
      "Only the owner of this key may do this",
    );
    expect(refusal(() => requireOwner(viaKey, { created_by: null })).status).toBe(403);
  });
});

describe("refuseInternalBlockType", () => {
  it("refuses the internal audit-log type with a 403 and lets every other type through", () => {
    expect(refusal(() => refuseInternalBlockType(INTERNAL_BLOCK_TYPE)).body).toMatchObject({
      code: "forbidden",
      details: { type: "provider_audit_log" },
    });
    for (const type of [undefined, "page", "paragraph", "provider_audit_logs"]) {
      expect(() => refuseInternalBlockType(type)).not.toThrow();
    }
  });
});
