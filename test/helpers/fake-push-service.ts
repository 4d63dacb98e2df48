import { type FakedThirdParties, fakeThirdParties, untilAborted } from "./third-party";

// A Web Push service (RFC 8030) for the fetch seam, checking what a real one checks and
// reading what only the browser could read: it makes browser-like subscriptions (an ECDH
// P-256 key pair and a 16-byte auth secret, by WebCrypto), and for every request to one of
// its endpoints verifies the VAPID authorization (RFC 8292), decrypts the aes128gcm body
// (RFC 8291) with the subscription's private key, and records what arrived. The decryption
// is written here from the RFCs, independently of the library the service encrypts with.

export const FAKE_PUSH_ORIGIN = "https://push.example.test";

/** What `PushSubscription.toJSON()` gives in a browser. */
export interface BrowserSubscription {
  endpoint: string;
  expirationTime: null;
  keys: { p256dh: string; auth: string };
}

/** How the fake answers one request: a status, never (until the request is aborted), or a network failure. */
export type PushAnswer = number | "hang" | "network-error";

/** A request the fake verified and decrypted. */
export interface ReceivedPush {
  endpoint: string;
  /** The decrypted body, parsed as JSON. */
  payload: unknown;
  topic: string | null;
  ttl: number | null;
  urgency: string | null;
  /** The VAPID claims, verified. */
  vapid: { aud: string; sub: string; exp: number; publicKey: string };
  /** What the fake answered. */
  answer: PushAnswer;
}

/** A request the fake refused before reading it (as a push service would: a bad VAPID, a body it cannot decrypt). */
export interface RefusedPush {
  url: string;
  status: number;
  reason: string;
}

interface Subscriber {
  subscription: BrowserSubscription;
  privateKey: CryptoKey;
  publicKey: Uint8Array;
  authSecret: Uint8Array;
  /** Answers still to give, in order; the last one is repeated. */
  answers: PushAnswer[];
}

export const base64url = (bytes: Uint8Array): string => {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
};

export const fromBase64url = (text: string): Uint8Array => {
  const standard = text.replaceAll("-", "+").replaceAll("_", "/");
  return Uint8Array.from(atob(standard.padEnd(Math.ceil(standard.length / 4) * 4, "=")), (c) => c.charCodeAt(0));
};

const utf8 = new TextEncoder();
const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

async function hkdf(salt: Uint8Array, ikm: Uint8Array, info: Uint8Array, bytes: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", ikm, "HKDF", false, ["deriveBits"]);
  return new Uint8Array(await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt, info }, key, bytes * 8));
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    reason: string,
  ) {
    super(reason);
  }
}

/** RFC 8291 §3.4 and RFC 8188: the plaintext of an aes128gcm body, for the subscriber. */
async function decrypt(subscriber: Subscriber, body: Uint8Array): Promise<Uint8Array> {
  if (body.length < 21) throw new Refusal(400, "body shorter than the aes128gcm header");
  const salt = body.subarray(0, 16);
  const recordSize = new DataView(body.buffer, body.byteOffset + 16, 4).getUint32(0);
  const keyIdLength = body[20] as number;
  if (keyIdLength !== 65) throw new Refusal(400, `key id of ${keyIdLength} bytes, not the sender's 65-byte key`);
  const senderKey = body.subarray(21, 21 + keyIdLength);
  const ciphertext = body.subarray(21 + keyIdLength);
  if (ciphertext.length > recordSize) throw new Refusal(400, "more than one record");
  const sender = await crypto.subtle
    .importKey("raw", senderKey, { name: "ECDH", namedCurve: "P-256" }, false, [])
    .catch(() => {
      throw new Refusal(400, "the sender's key is not a P-256 point");
    });
  // WebCrypto's member is `public`; the Workers types spell it `$public`.
  const ecdh = { name: "ECDH", public: sender } as unknown as SubtleCryptoDeriveKeyAlgorithm;
  const ecdhSecret = new Uint8Array(await crypto.subtle.deriveBits(ecdh, subscriber.privateKey, 256));
  const keyInfo = concat(utf8.encode("WebPush: info\u0000"), subscriber.publicKey, senderKey);
  const ikm = await hkdf(subscriber.authSecret, ecdhSecret, keyInfo, 32);
  const cek = await hkdf(salt, ikm, utf8.encode("Content-Encoding: aes128gcm\u0000"), 16);
  const nonce = await hkdf(salt, ikm, utf8.encode("Content-Encoding: nonce\u0000"), 12);
  const key = await crypto.subtle.importKey("raw", cek, "AES-GCM", false, ["decrypt"]);
  let padded: Uint8Array;
  try {
    padded = new Uint8Array(await crypto.subtle.decrypt({ name: "AES-GCM", iv: nonce }, key, ciphertext));
  } catch {
    throw new Refusal(400, "the body does not decrypt for this subscription");
  }
  // The plaintext, then 0x02 (the last record's delimiter), then zeros.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 0x02) throw new Refusal(400, "no last-record delimiter after the plaintext");
  return padded.subarray(0, end);
}

/** RFC 8292: `Authorization: vapid t=<JWT>, k=<public key>`, checked for this endpoint. */
async function verifyVapid(
  header: string | null,
  audience: string,
  expectedKey: string,
  nowSeconds: number,
): Promise<ReceivedPush["vapid"]> {
  const match = /^vapid\s+(.+)$/i.exec(header ?? "");
  if (!match) throw new Refusal(401, "no vapid authorization");
  const params = new Map(
    (match[1] as string).split(",").map((part) => {
      const [name, ...value] = part.trim().split("=");
      return [name?.trim(), value.join("=").trim()] as const;
    }),
  );
  const token = params.get("t");
  const publicKey = params.get("k");
  if (!token || !publicKey) throw new Refusal(401, "the vapid authorization lacks t or k");
  if (publicKey !== expectedKey) throw new Refusal(403, "signed with another key than the subscription's");
  const [header64, claims64, signature64] = token.split(".");
  if (!header64 || !claims64 || !signature64) throw new Refusal(401, "the vapid token is not a JWT");
  const jwtHeader = JSON.parse(new TextDecoder().decode(fromBase64url(header64))) as { alg?: string };
  if (jwtHeader.alg !== "ES256") throw new Refusal(401, `the vapid token is ${jwtHeader.alg}, not ES256`);
  const verifier = await crypto.subtle.importKey(
    "raw",
    fromBase64url(publicKey),
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["verify"],
  );
  const valid = await crypto.subtle.verify(
    { name: "ECDSA", hash: "SHA-256" },
    verifier,
    fromBase64url(signature64),
    utf8.encode(`${header64}.${claims64}`),
  );
  if (!valid) throw new Refusal(403, "the vapid signature does not verify");
  const claims = JSON.parse(new TextDecoder().decode(fromBase64url(claims64))) as {
    aud?: unknown;
    sub?: unknown;
    exp?: unknown;
  };
  if (claims.aud !== audience) throw new Refusal(403, `aud is ${String(claims.aud)}, not ${audience}`);
  if (typeof claims.exp !== "number" || claims.exp <= nowSeconds) throw new Refusal(403, "the vapid token expired");
  if (claims.exp > nowSeconds + 24 * 60 * 60) throw new Refusal(403, "the vapid token lives more than 24 hours");
  if (typeof claims.sub !== "string" || !/^(mailto:|https:)/.test(claims.sub)) {
    throw new Refusal(403, "the vapid sub is not a mailto: or https: URL");
  }
  return { aud: claims.aud, sub: claims.sub, exp: claims.exp, publicKey };
}

export interface FakePushServiceOptions {
  /** The VAPID public key subscriptions are made with (PushManager.subscribe's applicationServerKey). */
  vapidPublicKey: string;
  /** Where its endpoints are (default https://push.example.test). */
  origin?: string;
  /** The VAPID `aud` it expects (default: its origin, as RFC 8292 says). */
  audience?: string;
}

export class FakePushService {
  readonly origin: string;
  /** Every request verified and decrypted, in order, whatever was answered. */
  readonly received: ReceivedPush[] = [];
  /** Every request refused before it was read (bad VAPID, undecryptable body, unknown endpoint). */
  readonly refused: RefusedPush[] = [];
  private readonly subscribers = new Map<string, Subscriber>();
  private readonly vapidPublicKey: string;
  private readonly audience: string;

  constructor(options: FakePushServiceOptions) {
    this.vapidPublicKey = options.vapidPublicKey;
    this.origin = options.origin ?? FAKE_PUSH_ORIGIN;
    this.audience = options.audience ?? this.origin;
  }

  /** A browser's subscription at a new endpoint of this service. */
  async subscribe(): Promise<BrowserSubscription> {
    const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
      "deriveBits",
    ])) as CryptoKeyPair;
    const publicKey = new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer);
    const authSecret = crypto.getRandomValues(new Uint8Array(16));
    const endpoint = `${this.origin}/push/${base64url(crypto.getRandomValues(new Uint8Array(24)))}`;
    const subscription: BrowserSubscription = {
      endpoint,
      expirationTime: null,
      keys: { p256dh: base64url(publicKey), auth: base64url(authSecret) },
    };
    this.subscribers.set(endpoint, { subscription, privateKey: pair.privateKey, publicKey, authSecret, answers: [] });
    return subscription;
  }

  /**
   * How the endpoint answers its next requests, in order; the last answer is repeated.
   * `respond(e, 500, 500, 201)`: two failures, then success; `respond(e, 410)`: gone for good.
   * By default every request is answered 201.
   */
  respond(endpoint: string, ...answers: PushAnswer[]): void {
    const subscriber = this.subscribers.get(endpoint);
    if (!subscriber) throw new Error("respond: not an endpoint of this fake push service");
    subscriber.answers = answers;
  }

  /** The requests verified and decrypted for one endpoint (or all). */
  receivedBy(endpoint?: string): ReceivedPush[] {
    return endpoint === undefined ? this.received : this.received.filter((push) => push.endpoint === endpoint);
  }

  /** The pushes accepted (answered 2xx) for one endpoint (or all). */
  delivered(endpoint?: string): ReceivedPush[] {
    return this.receivedBy(endpoint).filter((push) => typeof push.answer === "number" && push.answer < 300);
  }

  /** Requests that reached the endpoint (or any), read or refused. */
  count(endpoint?: string): number {
    const refused = this.refused.filter((r) => endpoint === undefined || r.url === endpoint).length;
    return this.receivedBy(endpoint).length + refused;
  }

  /** Answers one request as the push service: the handler for `fakeThirdParties`. */
  readonly handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.origin !== this.origin) throw new TypeError("FakePushService: no such host");
    const endpoint = `${url.origin}${url.pathname}`;
    try {
      const subscriber = this.subscribers.get(endpoint);
      if (!subscriber || request.method !== "POST") throw new Refusal(404, "no such subscription");
      const vapid = await verifyVapid(
        request.headers.get("Authorization"),
        this.audience,
        this.vapidPublicKey,
        Math.floor(Date.now() / 1000),
      );
      if (request.headers.get("Content-Encoding") !== "aes128gcm") {
        throw new Refusal(415, `Content-Encoding ${request.headers.get("Content-Encoding")}, not aes128gcm`);
      }
      const ttlHeader = request.headers.get("TTL");
      if (ttlHeader === null || !/^\d+$/.test(ttlHeader)) throw new Refusal(400, "no TTL (RFC 8030 §5.2)");
      const plaintext = await decrypt(subscriber, new Uint8Array(await request.arrayBuffer()));
      const answer = subscriber.answers.length > 1 ? (subscriber.answers.shift() as PushAnswer) : subscriber.answers[0];
      this.received.push({
        endpoint,
        payload: JSON.parse(new TextDecoder().decode(plaintext)),
        topic: request.headers.get("Topic"),
        ttl: Number(ttlHeader),
        urgency: request.headers.get("Urgency"),
        vapid,
        answer: answer ?? 201,
      });
      if (answer === "hang") return await untilAborted(request.signal);
      if (answer === "network-error") throw new TypeError(`FakePushService: connection reset by ${endpoint}`);
      return new Response(null, { status: answer ?? 201, headers: { Location: `${endpoint}/message/1` } });
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      this.refused.push({ url: endpoint, status: error.status, reason: error.message });
      return new Response(JSON.stringify({ reason: error.message }), { status: error.status });
    }
  };

  /** Puts this service at the fetch seam (until `restore()`); requests to other hosts fail as unreachable. */
  install(): FakedThirdParties {
    return fakeThirdParties(this.handle);
  }
}
