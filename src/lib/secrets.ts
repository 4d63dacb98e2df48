import type { RequestContext } from "./context";
import { allowsLocalShortcuts } from "./environment";
import { ApiError } from "./errors";

/** Shortest secret accepted outside local work: 32 characters of a random string. */
export const MIN_SECRET_LENGTH = 32;

export interface SecretSpec {
  /** The secret's name, as `wrangler secret put` takes it. */
  name: "SESSION_SECRET" | "MEDIA_SIGNING_SECRET" | "VAPID_PRIVATE_KEY" | "STRIPE_WEBHOOK_SECRET";
  /** What it protects, for the message: "App sessions", "Media links". */
  protects: string;
  /** Public, so used only for local work when the secret is unset (lib/environment.ts). */
  developmentDefault: string;
  /** Where that default may stand in: the test suite and `wrangler dev` (`local`), or `wrangler dev` only. */
  defaultFor: "local" | "wrangler dev";
  /** Values that must never protect a deployment (the .dev.vars.example placeholder). */
  placeholders?: readonly string[];
}

/**
 * A secret the service cannot work without, or a 503 naming what to set: never a weak
 * default outside local work. Outside it, a missing, short (under 32 characters), public
 * default or placeholder value is refused.
 */
export function requiredSecret(ctx: Pick<RequestContext, "env" | "local">, spec: SecretSpec): string {
  const configured = ctx.env[spec.name];
  const local = allowsLocalShortcuts(ctx);
  const refuse = (problem: string) =>
    new ApiError(
      "unavailable",
      `${spec.protects} are not configured on this server: ${problem} (wrangler secret put ${spec.name})`,
      { setting: spec.name },
    );
  if (!configured) {
    const defaultAllowed = local && (spec.defaultFor === "local" || ctx.env.ENVIRONMENT === "development");
    if (defaultAllowed) return spec.developmentDefault;
    throw refuse(`set the ${spec.name} secret`);
  }
  const weak =
    configured.length < MIN_SECRET_LENGTH ||
    configured === spec.developmentDefault ||
    (spec.placeholders ?? []).includes(configured);
  if (!local && weak) {
    throw refuse(`${spec.name} must be a random string of at least ${MIN_SECRET_LENGTH} characters`);
  }
  return configured;
}
