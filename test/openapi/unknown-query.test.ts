import { describe, expect, it } from "vitest";
import { api, createUser } from "../helpers/api";
import { expectErrorBody } from "../helpers/auth-matrix";
import { concrete, contractOperations } from "../helpers/contract";
import { sessionOf } from "../helpers/cursor-matrix";

/**
 * An unknown query parameter is a 400 naming it, on every GET of the contract that needs a
 * credential (a listing, a single resource): a misspelt filter (`statuses` for `status`) is never
 * silently ignored, which would answer everything it meant to narrow. Open GETs (service
 * information, liveness, health, a signed media link) ignore what they do not read: monitors and
 * mail clients add their own parameters.
 */
const operations = await contractOperations();
const isOpen = (security: Record<string, string[]>[] | undefined) => (security ?? []).length === 0;
const gets = operations.filter(({ method, operation }) => method === "get" && !isOpen(operation.security));
const openGets = operations.filter(({ method, operation }) => method === "get" && isOpen(operation.security));
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
      expect.arrayContaining(["GET /api/v1/blocks/{id}", "GET /api/v1/backlinks/{targetPageId}/count"]),
    );
    expect(openGets.map(({ name }) => name)).toEqual(
      expect.arrayContaining(["GET /", "GET /test", "GET /health", "GET /media/signed"]),
    );
  });

  it.each([["/test"], ["/"], ["/health"]])("an open GET ignores a parameter it does not read: %s", async (path) => {
    const res = await api(`${path}?cache=1`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
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
