import { describe, expect, it } from "vitest";
import { headerComponents } from "../../src/openapi/headers";

// The contract's header components are written when the app is made: a quota the settings allow
// must never make them fail (a throw there stops the whole Worker at startup).

describe("the contract's quota headers, for any quota the settings allow", () => {
  it.each([
    [1, 10],
    [5, 60],
    [12, 60],
    [1200, 60],
    [1_000_000, 10],
  ])("q=%i, w=%i: examples within the quota and the window, in the draft's syntax", (quota, windowSeconds) => {
    const headers = headerComponents({ name: "default", quota, windowSeconds });
    expect(headers["RateLimit-Policy"].schema.example).toBe(`"default";q=${quota};w=${windowSeconds}`);
    const [, remaining, reset] = /^"default";r=(\d+);t=(\d+)$/.exec(headers.RateLimit.schema.example) ?? [];
    expect(Number(remaining)).toBeLessThanOrEqual(quota);
    expect(Number(reset)).toBeGreaterThanOrEqual(1);
    expect(Number(reset)).toBeLessThanOrEqual(windowSeconds);
    expect(headers["Retry-After"].schema.example).toBe(Number(reset));
  });
});
