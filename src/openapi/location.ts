import type { MiddlewareHandler } from "hono";
import { log } from "../lib/log";

// `Location` of a 201 (RFC 9110 §15.3.2: a 201 identifies the resource it created by Location;
// §10.2.2: a URI reference, resolved against the request's URL). Sent as an absolute path: the
// service never builds its own origin from the Host header a client writes, and a path resolves
// against whichever origin (a proxy's, a custom domain) the client called.

/** `{field}` (of the 201's answer, `{a.b}` inside it) or `{path.name}` (the request's path parameter). */
const PLACEHOLDER = /\{([^{}]+)\}/g;
const PATH_PREFIX = "path.";

interface LocatedRoute {
  method: string;
  path: string;
  responses: Record<string | number, unknown>;
}

/**
 * A route's location as declared, checked when the route is defined: a route answering 201 declares
 * one and only such a route does, it is an absolute path, and its `{path.name}` are the route's own
 * path parameters. A mistake is a definition that fails at startup (and in every test), not a 201
 * without its Location.
 */
export function checkedLocation(route: LocatedRoute, location: string | undefined): string | undefined {
  const where = `${route.method.toUpperCase()} ${route.path}`;
  const creates = "201" in route.responses;
  if (creates !== (location !== undefined)) {
    throw new Error(`${where}: ${creates ? "a 201 needs a location" : "a location belongs to a route answering 201"}`);
  }
  if (location === undefined) return undefined;
  if (!location.startsWith("/") || location.startsWith("//"))
    throw new Error(`${where}: location must be an absolute path`);
  for (const [, name = ""] of location.matchAll(PLACEHOLDER)) {
    if (name.startsWith(PATH_PREFIX) && !route.path.includes(`{${name.slice(PATH_PREFIX.length)}}`)) {
      throw new Error(`${where}: location names {${name}}, which is not a path parameter of the route`);
    }
  }
  return location;
}

/** What each placeholder stands for, in words: for the contract. */
function explained(location: string): string {
  const parts = [...location.matchAll(PLACEHOLDER)].map(([placeholder, name = ""]) =>
    name.startsWith(PATH_PREFIX)
      ? `\`${placeholder}\` the request's \`{${name.slice(PATH_PREFIX.length)}}\``
      : `\`${placeholder}\` the answer's \`${name}\``,
  );
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
}

/** The contract's `Location` of a 201. */
export const locationHeader = (location: string) => ({
  description: `Where the new resource is read, as an absolute path (RFC 9110 §10.2.2, resolved against the request's URL): \`${location}\`${explained(location)}.`,
  schema: { type: "string" as const, format: "uri-reference", example: location.replace(PLACEHOLDER, "3f1c9b7e") },
});

/** The value at a dotted path of a parsed JSON answer, when it is a string or a number. */
function fieldOf(body: unknown, path: string): string | undefined {
  let value: unknown = body;
  for (const key of path.split(".")) {
    value = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  }
  return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
}

/**
 * Sets `Location` on the route's 201 from its answer and its path parameters. Every creating route
 * gets it from its declaration, with no handler involved. Should a value be missing (a bug the
 * route tests catch), the 201 stands without it: the resource was created, and says so.
 */
export function locationOfCreated(location: string): MiddlewareHandler {
  return async (c, next) => {
    // The answer as the handler gave it to `c.json`, so the 201 is neither copied nor parsed
    // again. An answer made otherwise, such as an Idempotency-Key replay, is read back.
    let answered: { body: unknown } | undefined;
    const json = c.json;
    c.json = ((body: unknown, ...rest: unknown[]) => {
      answered = { body };
      return (json as (...args: unknown[]) => Response)(body, ...rest);
    }) as typeof c.json;
    await next();
    if (c.res.status !== 201) return;
    const body: unknown = answered ? answered.body : await c.res.clone().json();
    const missing: string[] = [];
    const url = location.replace(PLACEHOLDER, (_placeholder, name: string) => {
      const value = name.startsWith(PATH_PREFIX) ? c.req.param(name.slice(PATH_PREFIX.length)) : fieldOf(body, name);
      if (value === undefined) missing.push(name);
      return encodeURIComponent(value ?? "");
    });
    if (missing.length === 0) {
      c.res.headers.set("Location", url);
      return;
    }
    log(c.get("ctx"), "error", "Location not set", { path: c.req.path, missing });
  };
}
