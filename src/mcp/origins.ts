import type { MiddlewareHandler } from "hono";
import type { AppEnv, RequestContext } from "../lib/context";
import { allowsLocalShortcuts } from "../lib/environment";
import { forbidden } from "../lib/errors";

// MCP's Streamable HTTP transport (2025-06-18 and 2025-11-25, Security Warning): servers MUST
// validate the Origin header on all incoming connections, against DNS rebinding, and answer one
// that is present and invalid with 403 Forbidden. A request without Origin (an agent, curl, a
// server-side client) is served as before; a browser's page is served only from an allowed origin.

/** The path of the MCP server: the origin check guards every request to it, preflights included. */
export const MCP_PATH = "/mcp";

/** Hosts of this machine, as a URL's `hostname` writes them. */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * The origins MCP_ALLOWED_ORIGINS lists (comma-separated): a web origin as its URL's origin; an
 * origin of another scheme (`chrome-extension://<id>`, `app://...`, `vscode-webview://...`), which a
 * URL serializes as `null`, as written, lower-cased. An entry that is no URL, or `null`, names none.
 */
function listedOrigins(setting: string | undefined): string[] {
  const origins: string[] = [];
  for (const entry of (setting ?? "").split(",")) {
    const written = entry.trim().toLowerCase();
    try {
      const origin = new URL(written).origin;
      origins.push(origin !== "null" ? origin : written);
    } catch {
      // Not a URL: no origin.
    }
  }
  return origins.filter((origin) => origin !== "null");
}

/**
 * Whether a page of `origin` (an Origin header's value) may call the MCP server at `requestUrl`:
 * the service's own origin (the request's) when deployed (ENVIRONMENT neither `development` nor
 * `test`), where only the platform's routes reach the Worker; under `wrangler dev` the request's
 * host is the client's to write, so a rebinding page (`http://attacker.example:8787`, its name
 * pointed at this machine or its LAN address) would name its own origin as ours. A loopback origin
 * over http (any port) in local work (`allowsLocalShortcuts`: the tests, or `npm run dev` on a
 * connection from this machine); or one MCP_ALLOWED_ORIGINS lists. Compared as
 * serialized origins, exactly (another scheme, port or case, or a value with a path, is none of
 * them); an origin of a scheme that is not the web's, as written, case aside.
 */
export function allowsOrigin(origin: string, requestUrl: string, ctx: Pick<RequestContext, "env" | "local">): boolean {
  const deployed = ctx.env.ENVIRONMENT !== "development" && ctx.env.ENVIRONMENT !== "test";
  if (deployed && origin === new URL(requestUrl).origin) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  const listed = listedOrigins(ctx.env.MCP_ALLOWED_ORIGINS);
  if (url.origin === "null") return origin !== "null" && listed.includes(origin.toLowerCase());
  if (url.origin !== origin) return false;
  if (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname) && allowsLocalShortcuts(ctx)) return true;
  return listed.includes(origin);
}

/**
 * A request to the MCP server with an Origin it does not allow is a 403, before anything else runs
 * (the credential, the body, a preflight's answer): its answer carries no CORS headers
 * (`originRefused`), so a browser grants the page nothing, a preflight included.
 */
export const refuseForeignOrigin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const origin = c.req.header("Origin");
  if (origin !== undefined && !allowsOrigin(origin, c.req.url, c.get("ctx"))) {
    c.set("originRefused", true);
    throw forbidden(`Pages of the origin ${origin} may not call the MCP server`, { origin });
  }
  await next();
};
