import type { RequestContext } from "./context";

/**
 * Whether this request may use what exists for local work only (the development
 * sign-in provider, the development session secret): the test suite, or
 * `ENVIRONMENT = "development"` reached on a loopback address. A top-level
 * configuration deployed by mistake (`wrangler deploy` without `--env production`)
 * says "development" too, but is never reached on a loopback address.
 */
export const allowsLocalShortcuts = (ctx: Pick<RequestContext, "env" | "local">): boolean =>
  ctx.env.ENVIRONMENT === "test" || (ctx.env.ENVIRONMENT === "development" && ctx.local);

/** A whole number setting within `min`..`max`, or `fallback` when unset or not a positive integer. */
export function boundedSetting(value: string | undefined, fallback: number, min: number, max: number): number {
  const configured = Number(value);
  if (!value || !Number.isSafeInteger(configured) || configured <= 0) return fallback;
  return Math.min(max, Math.max(min, configured));
}
