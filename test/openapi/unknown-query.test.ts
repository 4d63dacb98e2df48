import { describe, expect, it } from "vitest";
import { api, createUser } from "../helpers/api";
import { expectErrorBody } from "../helpers/auth-matrix";
import { concrete, contractOperations } from "../helpers/contract";
import { sessionOf } from "../helpers/cursor-matrix";

/**
 * An unknown query parameter is a 400 naming it, on every GET of the contract (a listing, a
 * single resource, a system route): a misspelt filter (`statuses` for `status`) is never silently
 * ignored, which would answer everything it meant to narrow.
 */
const LENIENT = new Set([
  // A signed media link ignores extra parameters: a tracking parameter added to it must not break it.
  "GET /media/signed",
]);
const gets = (await contractOperations()).filter(({ name, method }) => method === "get" && !LENIENT.has(name));
const sessionOnly = (security: Record<string, string[]>[] | undefined) =>
  (security ?? []).length > 0 && !(security ?? []).some((scheme) => "apiKeyAuth" in scheme);

async function refusedFor(path: string, parameter: string, sessionNeeded: boolean) {
  const user = await createUser();
  const res = await api(`${path}?${parameter}=1`, {
    auth: sessionNeeded ? await sessionOf(user) : user,
  });
  expectErrorBody(res, 400);
  expect(res.body, JSON.stringify(res.body)).toMatchObject({
    code: "validation_failed",
    details: {
      source: "query parameters",
      issues: expect.arrayContaining([
        expect.objectContaining({ code: "unrecognized_keys", message: expect.stringContaining(`"${parameter}"`) }),
      ]),
    },
  });
}

describe("an unknown query parameter is a 400 naming it", () => {
  it("the walk covers the GETs that declare no query and the listings", () => {
    expect(gets.map(({ name }) => name)).toEqual(
      expect.arrayContaining(["GET /api/v1/blocks/{id}", "GET /api/v1/backlinks/{targetPageId}/count", "GET /health"]),
    );
  });

  it.each(gets.map(({ name, path, operation }) => [name, path, sessionOnly(operation.security)] as const))(
    "%s",
    async (_name, path, sessionNeeded) => {
      await refusedFor(concrete(path), "bogus", sessionNeeded);
    },
  );

  it.each([
    ["/api/v1/reminders", "statuses"],
    ["/api/v1/changes", "type"],
  ])("a near miss of a known one: %s?%s", async (path, parameter) => {
    await refusedFor(path, parameter, false);
  });
});
