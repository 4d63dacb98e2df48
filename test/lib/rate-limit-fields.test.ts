import { describe, expect, it } from "vitest";
import { quotaPolicyItem, refusedItem, serviceLimitItem } from "../../src/lib/rate-limit-fields";

// RateLimit-Policy and RateLimit items (draft-ietf-httpapi-ratelimit-headers-11) as Structured
// Field Items (RFC 9651): a String naming the policy, Integer parameters.

describe("RateLimit field items", () => {
  it("a quota policy: q and w", () => {
    expect(quotaPolicyItem({ name: "default", quota: 1200, windowSeconds: 60 })).toBe('"default";q=1200;w=60');
  });

  it("a service limit: r, and t when known; a refusal is r=0 until Retry-After", () => {
    expect(serviceLimitItem({ policy: "default", remaining: 7, resetSeconds: 42 })).toBe('"default";r=7;t=42');
    expect(serviceLimitItem({ policy: "default", remaining: 7 })).toBe('"default";r=7');
    expect(refusedItem("ai-streams", 60)).toBe('"ai-streams";r=0;t=60');
  });

  it("escapes quotes and backslashes in a name; refuses what no Structured Field can carry", () => {
    expect(serviceLimitItem({ policy: 'a"b\\c', remaining: 0 })).toBe('"a\\"b\\\\c";r=0');
    expect(() => serviceLimitItem({ policy: "café", remaining: 0 })).toThrow(/Structured Field string/);
    expect(() => serviceLimitItem({ policy: "default", remaining: -1 })).toThrow(/non-negative/);
    expect(() => quotaPolicyItem({ name: "default", quota: 1.5, windowSeconds: 60 })).toThrow(/non-negative/);
  });
});
