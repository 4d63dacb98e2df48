import { isLoopbackAddress } from "./address-policy";
import type { RequestContext } from "./context";

/**
 * Whether this request may use what exists for local work only (the development
 * sign-in provider, the development session secret and VAPID key, plain http to
 * this machine): the test suite, or `ENVIRONMENT = "development"` on a connection
 * from this machine (`ctx.local()`, `connectsFromLoopback`). A top-level configuration
 * deployed by mistake (`wrangler deploy` without `--env production`) says
 * "development" too, but no request to a deployment comes from a loopback address.
 */
export const allowsLocalShortcuts = (ctx: Pick<RequestContext, "env" | "local">): boolean =>
  ctx.env.ENVIRONMENT === "test" || (ctx.env.ENVIRONMENT === "development" && ctx.local());

/** Headers a proxy adds: a request that came through one is not this machine's own, whatever the peer. */
const FORWARDING_HEADERS = ["Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-IP"];

/**
 * Whether a request's connection comes from this machine, as the platform reports it: the peer
 * address in `CF-Connecting-IP` is a loopback address, and no proxy says it forwarded the request.
 * Never the Host header or the URL, which the client writes. On Cloudflare the edge sets
 * `CF-Connecting-IP` to the client's public address (a client cannot set it), so a deployment is
 * never local. Under `wrangler dev`, Miniflare sets it from the socket's peer, but only when the
 * client sent none: a client that can reach a dev server listening beyond loopback can claim
 * `127.0.0.1` (docs/decisions.md, "Local work"). The forwarding headers only ever take locality
 * away, so a client gains nothing by sending or leaving them out beyond what its connection gives.
 */
export function connectsFromLoopback(headers: Headers): boolean {
  const peer = headers.get("CF-Connecting-IP");
  if (!peer || !isLoopbackAddress(peer)) return false;
  return !FORWARDING_HEADERS.some((name) => headers.has(name));
}

/** A whole number setting within `min`..`max`, or `fallback` when unset or not a positive integer. */
export function boundedSetting(value: string | undefined, fallback: number, min: number, max: number): number {
  const configured = Number(value);
  if (!value || !Number.isSafeInteger(configured) || configured <= 0) return fallback;
  return Math.min(max, Math.max(min, configured));
}
