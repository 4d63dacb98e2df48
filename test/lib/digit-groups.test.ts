import { describe, expect, it } from "vitest";
import { digitGroups } from "../../src/lib/digit-groups";

// The contract's descriptions write numbers as toLocaleString("en") did, without loading Intl.

describe("digitGroups", () => {
  it("writes what toLocaleString('en') writes", () => {
    for (const n of [0, 7, 999, 1_000, 10_000, 604_800, 1_000_000, 1_234_567_890]) {
      expect(digitGroups(n)).toBe(n.toLocaleString("en"));
    }
  });
});
