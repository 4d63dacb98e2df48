import type { RequestContext } from "../../lib/context";
import { allowsLocalShortcuts } from "../../lib/environment";
import { ApiError } from "../../lib/errors";
import { requiredSecret } from "../../lib/secrets";
import { decodeBase64Url, encodeBase64Url, isP256Point } from "./encoding";

// VAPID (RFC 8292): the key pair that signs every push request, and the contact sent with
// it. Browsers subscribe with the public key (`applicationServerKey`), so a subscription
// works only with requests signed by its private key: changing the pair orphans every
// subscription made before (their pushes are refused until the browsers subscribe again).
//
// - VAPID_PUBLIC_KEY (var): the public key, an uncompressed P-256 point in base64url
//   (65 bytes, 87 characters), exactly what PushManager.subscribe takes.
// - VAPID_PRIVATE_KEY (secret): its private scalar `d` in base64url (32 bytes, 43 characters),
//   as in a JWK: the form @block65/webcrypto-web-push takes.
// - VAPID_SUBJECT (var): how the push service reaches the operator, a `mailto:` or `https:` URL.
//
// For local work (the tests and `wrangler dev` on this machine: lib/environment.ts) the
// committed development pair below stands in for whatever is unset; anywhere else a missing
// setting, or the development pair, is a 503 naming the setting.

/** The development pair's public key: public, for local work only (wrangler.toml top-level [vars]). */
export const DEVELOPMENT_VAPID_PUBLIC_KEY =
  "BFUoEVJIcY7g_k2nF5uYAoee9Xi5h_2s9frD9oLCCE_1iyF3CAdq7JhN8TEZGcm4i-XglcI1qI0RlI4UavDQl_k";
/** The development pair's private key: committed, so it protects nothing; refused outside local work. */
const DEVELOPMENT_VAPID_PRIVATE_KEY = "Tqqvy4dg6o-9i746AfkB3G9xIKok_ocEsdBaDm8ZVec";
const DEVELOPMENT_VAPID_SUBJECT = "mailto:webpush-development@example.com";

/** What signs push requests, as the library takes it. */
export interface VapidKeys {
  /** `mailto:` or `https:` URL. */
  subject: string;
  /** base64url of the uncompressed P-256 point. */
  publicKey: string;
  /** base64url of the private scalar `d`. */
  privateKey: string;
}

type ConfigScope = Pick<RequestContext, "env" | "local">;
type VapidSetting = "VAPID_PUBLIC_KEY" | "VAPID_PRIVATE_KEY" | "VAPID_SUBJECT";

const notConfigured = (setting: VapidSetting, problem: string) =>
  new ApiError("unavailable", `Web Push is not configured on this server: ${problem}`, { setting });

const GENERATE = "generate a key pair for this deployment (see README, Web Push)";

/** A var: its value, the development value locally when unset, or a 503 naming it. */
function requiredVar(ctx: ConfigScope, name: "VAPID_PUBLIC_KEY" | "VAPID_SUBJECT", fallback: string): string {
  const configured = ctx.env[name]?.trim();
  if (configured) return configured;
  if (allowsLocalShortcuts(ctx)) return fallback;
  throw notConfigured(name, `set ${name} in [env.production.vars] of wrangler.toml`);
}

function isSubject(value: string): boolean {
  if (/^mailto:[^@\s]+@[^@\s]+$/i.test(value)) return true;
  try {
    const url = new URL(value);
    return url.protocol === "https:" && url.hostname !== "";
  } catch {
    return false;
  }
}

/** The pairs found to belong together (or not), so the check costs one sign and verify per isolate. */
const pairChecks = new Map<string, Promise<boolean>>();

/** Whether `privateKey` is the private key of `publicKey`: a signature by one verifies with the other. */
function isKeyPair(publicKey: Uint8Array, privateKey: string): Promise<boolean> {
  const cacheKey = `${privateKey}:${publicKey.join(",")}`;
  let check = pairChecks.get(cacheKey);
  if (!check) {
    check = (async () => {
      const algorithm = { name: "ECDSA", namedCurve: "P-256" };
      const signing = { name: "ECDSA", hash: "SHA-256" };
      try {
        const jwk: JsonWebKey = {
          kty: "EC",
          crv: "P-256",
          x: encodeBase64Url(publicKey.subarray(1, 33)),
          y: encodeBase64Url(publicKey.subarray(33, 65)),
          d: privateKey,
        };
        const signer = await crypto.subtle.importKey("jwk", jwk, algorithm, false, ["sign"]);
        const verifier = await crypto.subtle.importKey("raw", publicKey, algorithm, false, ["verify"]);
        const message = new TextEncoder().encode("vapid key pair check");
        const signature = await crypto.subtle.sign(signing, signer, message);
        return await crypto.subtle.verify(signing, verifier, signature, message);
      } catch {
        return false;
      }
    })();
    if (pairChecks.size > 16) pairChecks.clear();
    pairChecks.set(cacheKey, check);
  }
  return check;
}

/**
 * The VAPID keys and subject, checked: each well-formed, the two keys one pair, and outside
 * local work none of them the development pair. Otherwise a 503 `unavailable` whose
 * `details.setting` names what to set.
 */
export async function vapidKeys(ctx: ConfigScope): Promise<VapidKeys> {
  const local = allowsLocalShortcuts(ctx);
  const publicKey = requiredVar(ctx, "VAPID_PUBLIC_KEY", DEVELOPMENT_VAPID_PUBLIC_KEY);
  const point = decodeBase64Url(publicKey);
  if (!point || !(await isP256Point(point))) {
    throw notConfigured(
      "VAPID_PUBLIC_KEY",
      "VAPID_PUBLIC_KEY must be a P-256 public key: the base64url of its uncompressed point (65 bytes, 87 characters)",
    );
  }
  if (!local && publicKey === DEVELOPMENT_VAPID_PUBLIC_KEY) {
    throw notConfigured("VAPID_PUBLIC_KEY", `VAPID_PUBLIC_KEY is the public development key: ${GENERATE}`);
  }
  const privateKey = requiredSecret(ctx, {
    name: "VAPID_PRIVATE_KEY",
    protects: "Web Push notifications",
    // Public: the test suite and `wrangler dev` only, so reminders can be pushed with no setup.
    developmentDefault: DEVELOPMENT_VAPID_PRIVATE_KEY,
    defaultFor: "local",
  });
  if (decodeBase64Url(privateKey)?.length !== 32) {
    throw notConfigured(
      "VAPID_PRIVATE_KEY",
      "VAPID_PRIVATE_KEY must be a P-256 private key: the base64url of its 32-byte scalar (a JWK's `d`, 43 characters)",
    );
  }
  if (!(await isKeyPair(point, privateKey))) {
    throw notConfigured(
      "VAPID_PRIVATE_KEY",
      "VAPID_PRIVATE_KEY is not the private key of VAPID_PUBLIC_KEY: set both from the same key pair",
    );
  }
  const subject = requiredVar(ctx, "VAPID_SUBJECT", DEVELOPMENT_VAPID_SUBJECT);
  if (!isSubject(subject)) {
    throw notConfigured(
      "VAPID_SUBJECT",
      "VAPID_SUBJECT must be a mailto: or https: URL where the push service can reach the operator",
    );
  }
  return { subject, publicKey, privateKey };
}

/** The key browsers subscribe with (PushManager.subscribe's `applicationServerKey`), once push can be sent. */
export const vapidPublicKey = async (ctx: ConfigScope): Promise<string> => (await vapidKeys(ctx)).publicKey;
