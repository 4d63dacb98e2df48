// Signed media URLs: `<origin>/media/signed?bucket=&path=&expires=&signature=`, served by this
// Worker from the R2 binding. The signature is an HMAC-SHA256 (Web Crypto) over the bucket, the
// path and the expiry, so none of them can be changed; the link needs no other credential.
// Plain functions of a secret, with no request context: a benchmark's bare Worker can make and
// check the same links.

/** Where signed links are served (an open route: the signature is the credential). */
export const SIGNED_URL_PATH = "/media/signed";

/** What a signature covers. */
export interface SignedTarget {
  bucket: string;
  path: string;
  /** Unix seconds after which the link is refused. */
  expires: number;
}

/** Domain separation and a version: a change of format makes every old link fail, never misread. */
const SIGNATURE_CONTEXT = "workspace-api media url v1";
/** An HMAC-SHA256 in base64url without padding. */
const SIGNATURE_SHAPE = /^[A-Za-z0-9_-]{43}$/;

const encoder = new TextEncoder();
/** The imported key of the last secret used (a Worker has one secret; importing costs more than signing). */
let cachedKey: { secret: string; key: Promise<CryptoKey> } | undefined;

function hmacKey(secret: string): Promise<CryptoKey> {
  if (cachedKey?.secret !== secret) {
    const key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
      "verify",
    ]);
    cachedKey = { secret, key };
  }
  return cachedKey.key;
}

/** The signed message: a JSON array, so no field can run into the next. */
const message = (target: SignedTarget) =>
  encoder.encode(JSON.stringify([SIGNATURE_CONTEXT, target.bucket, target.path, target.expires]));

const toBase64Url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

function fromBase64Url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

export async function signTarget(secret: string, target: SignedTarget): Promise<string> {
  const signature = await crypto.subtle.sign("HMAC", await hmacKey(secret), message(target));
  return toBase64Url(new Uint8Array(signature));
}

/** Whether `signature` was made for exactly this target with this secret (compared in constant time by Web Crypto). */
export async function verifyTarget(secret: string, target: SignedTarget, signature: string): Promise<boolean> {
  if (!SIGNATURE_SHAPE.test(signature)) return false;
  const bytes = fromBase64Url(signature);
  // One spelling per signature: the last character's unused bits must be zero.
  if (toBase64Url(bytes) !== signature) return false;
  return crypto.subtle.verify("HMAC", await hmacKey(secret), bytes, message(target));
}

/** The absolute signed URL of a target, on `origin` (this Worker's). */
export async function signedUrl(secret: string, origin: string, target: SignedTarget): Promise<string> {
  const query = new URLSearchParams({
    bucket: target.bucket,
    path: target.path,
    expires: String(target.expires),
    signature: await signTarget(secret, target),
  });
  return `${origin}${SIGNED_URL_PATH}?${query}`;
}

/** A link for `target` valid for `expiresIn` seconds from `now`, and when it ends (ISO-8601). */
export async function issueSignedUrl(
  secret: string,
  origin: string,
  location: { bucket: string; path: string },
  now: Date,
  expiresIn: number,
): Promise<{ signedUrl: string; expiresAt: string }> {
  const expires = Math.floor(now.getTime() / 1000) + expiresIn;
  return {
    signedUrl: await signedUrl(secret, origin, { ...location, expires }),
    expiresAt: new Date(expires * 1000).toISOString(),
  };
}
