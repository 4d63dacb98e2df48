/**
 * Stripe, through the `stripe` package: its API client with a fetch that goes through
 * lib/outbound.ts (timeout, the client's abort signal, failures that never carry a URL, key or
 * Stripe body; tests fake Stripe at that fetch), and webhook signature verification.
 */
import type Stripe from "stripe";
import type { RequestContext } from "../../lib/context";
import { ApiError, badRequest } from "../../lib/errors";
import { loadOnce } from "../../lib/load-once";
import { log } from "../../lib/log";
import { callThirdParty, OutboundError } from "../../lib/outbound";
import { requiredSecret } from "../../lib/secrets";
import { MAX_UNIX_SECONDS } from "./stripe-objects";
import { DEVELOPMENT_STRIPE_WEBHOOK_SECRET } from "./webhook-contract";

/**
 * The API version of requests the service makes: the one `stripe` 23.1 is typed for. Pinned
 * here rather than taken from the package, so a package upgrade that moves it fails to compile
 * until someone reads Stripe's changelog. Webhook events come in the version of their endpoint
 * (set in Stripe's dashboard), which may differ: see stripe-objects.ts.
 */
export const STRIPE_API_VERSION = "2026-10-28.endive";

/** Stripe's `Stripe-Signature` timestamps older than this are refused (Stripe's own default). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** Each call to Stripe's API, per attempt. */
const STRIPE_TIMEOUT_MS = 10_000;
/**
 * One retry after a network failure, a 409 or a 5xx. The package adds an idempotency key to every
 * POST, so a retried update is applied once; a DELETE (cancelling at once) carries none, and its
 * retry may find the subscription cancelled already: see `cancelSubscription`.
 */
const STRIPE_RETRIES = 1;

/**
 * The `stripe` package, loaded by the first call to Stripe or webhook to verify (the module system
 * keeps it for the isolate's later ones): its client holds a resource tree of every Stripe API,
 * which an isolate then builds only when a request needs it, not at startup for every request
 * (docs/performance.md, Startup).
 */
export const loadStripe = loadOnce(async (): Promise<typeof Stripe> => (await import("stripe")).default);

/** 503 `unavailable` unless STRIPE_SECRET_KEY is set: what a caller learns before anything else. */
export function requireStripeKey(ctx: RequestContext): string {
  const key = ctx.env.STRIPE_SECRET_KEY;
  if (!key)
    throw new ApiError("unavailable", "Payments are not configured on this server", { setting: "STRIPE_SECRET_KEY" });
  return key;
}

/**
 * Stripe answered with a success (2xx) the package could not read (not JSON, a body cut short):
 * the change was made, but its result is unknown. Carries when Stripe answered.
 */
export class UnreadableStripeAnswer extends Error {
  constructor(
    /** Stripe's `Date` header (Unix seconds), or our clock. */
    readonly answeredAt: number,
    readonly status: number,
  ) {
    super(`stripe answered with HTTP ${status} but its answer could not be read`);
    this.name = "UnreadableStripeAnswer";
  }
}

/** One JSON line with the request id: what happened with Stripe, never its body, key or URL. */
export function logStripe(ctx: RequestContext, level: "error" | "warn", fields: Record<string, unknown>) {
  log(ctx, level, "Stripe", { service: "stripe", ...fields });
}

/**
 * The part of Stripe's client a call may use: its subscriptions. The production bundle leaves the
 * package's other API resources out (wrangler.toml [alias], src/bundle/stripe-resources.ts), so
 * that calling one compiles only once its module is kept in the bundle again.
 */
export type StripeClient = Pick<Stripe, "subscriptions">;

/**
 * Calls Stripe's API with a client made for this request. Any failure of Stripe (an error
 * answer, a timeout, an unreachable network) is an OutboundError naming only the service and
 * the status: the error handler answers 500 `upstream_failed` without Stripe's message, URL or
 * request id, which are logged here with the request id instead.
 */
export async function callStripe<T>(ctx: RequestContext, call: (stripe: StripeClient) => Promise<T>): Promise<T> {
  const key = requireStripeKey(ctx);
  // A caller refused now (a key revoked a moment ago) is a 401 here, not a failure Stripe wraps.
  await ctx.confirmCaller();
  const StripeApi = await loadStripe();
  const failures: OutboundError[] = [];
  let refusal: ApiError | undefined;
  /** The answer of the latest attempt, if it got one. */
  let answered: { status: number; headers: Headers; requestId: string | null } | undefined;
  const fetchThroughOutbound = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const { signal: stripeSignal, ...options } = init ?? {};
    // Stripe's own timeout signal (longer than ours) and the client's, whichever comes first.
    const signal = stripeSignal ? AbortSignal.any([ctx.signal, stripeSignal]) : ctx.signal;
    const url = input instanceof Request ? input.url : input;
    answered = undefined;
    try {
      const response = await callThirdParty({ signal, confirmCaller: ctx.confirmCaller }, "stripe", url, {
        ...options,
        timeoutMs: STRIPE_TIMEOUT_MS,
      });
      answered = { status: response.status, headers: response.headers, requestId: response.headers.get("request-id") };
      return response;
    } catch (error) {
      if (error instanceof OutboundError) failures.push(error);
      if (error instanceof ApiError) refusal = error;
      throw error;
    }
  };
  const stripe = new StripeApi(key, {
    apiVersion: STRIPE_API_VERSION,
    httpClient: StripeApi.createFetchHttpClient(fetchThroughOutbound as typeof fetch),
    maxNetworkRetries: STRIPE_RETRIES,
    timeout: STRIPE_TIMEOUT_MS * 2,
    telemetry: false,
  });
  try {
    return await call(stripe);
  } catch (error) {
    if (refusal) throw refusal;
    const stripeError = error instanceof StripeApi.errors.StripeError ? error : undefined;
    if (!stripeError && failures.length === 0) throw error;
    if (
      stripeError &&
      stripeError.statusCode === undefined &&
      answered &&
      answered.status >= 200 &&
      answered.status < 300
    ) {
      // A success whose body could not be read (not JSON, cut short): done at Stripe, result unknown.
      logStripe(ctx, "error", {
        failure: "unreadable_answer",
        status: answered.status,
        stripe_request_id: answered.requestId ?? undefined,
      });
      throw new UnreadableStripeAnswer(
        answeredAt({ lastResponse: { headers: answered.headers } }, ctx.now()),
        answered.status,
      );
    }
    const failure =
      typeof stripeError?.statusCode === "number"
        ? new OutboundError("stripe", "status", stripeError.statusCode)
        : (failures.at(-1) ?? new OutboundError("stripe", "network"));
    logStripe(ctx, "error", {
      failure: failure.failure,
      status: failure.status,
      stripe_request_id: stripeError?.requestId,
      stripe_error_type: stripeError?.type,
      stripe_error_code: stripeError?.code,
    });
    throw failure;
  }
}

/**
 * When Stripe answered (its `Date` header, Unix seconds; our clock if it sent none): the instant
 * of the state it returned, on the clock its events' `created` come from.
 */
export function answeredAt(answer: { lastResponse?: { headers?: unknown } }, fallback: Date): number {
  // The fetch client's `lastResponse` is the Response itself (typed as a plain record of headers).
  const headers = answer.lastResponse?.headers;
  const value =
    headers instanceof Headers ? headers.get("date") : (headers as Record<string, string> | undefined)?.date;
  const date = Date.parse(value ?? "");
  // A date that is not one, or beyond year 9999 (it would outrank every later event): our clock.
  const usable = !Number.isNaN(date) && date >= 0 && date <= MAX_UNIX_SECONDS * 1000;
  return Math.floor((usable ? date : fallback.getTime()) / 1000);
}

type SignatureProblem = "missing" | "malformed" | "expired" | "mismatch";
const invalidSignature = (reason: SignatureProblem) =>
  badRequest("Invalid webhook signature", { header: "Stripe-Signature", reason });

/** The `t=` of a `Stripe-Signature` header that has one and at least one `v1=` signature, else null. */
function signedAt(header: string): number | null {
  let timestamp: number | null = null;
  let signatures = 0;
  for (const part of header.split(",")) {
    const [name, value = ""] = part.trim().split("=", 2);
    if (name === "t" && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    if (name === "v1" && value !== "") signatures++;
  }
  return signatures > 0 ? timestamp : null;
}

/**
 * The event a webhook request carries, once its `Stripe-Signature` header is verified over the
 * raw body with STRIPE_WEBHOOK_SECRET (`constructEventAsync`, Web Crypto). 400 when the header
 * is missing, malformed, older than the tolerance, or does not match; 503 when no secret is set
 * (under `wrangler dev`, from this machine, the public development secret stands in, so that
 * `npm run stripe:event` works offline) or, outside local work, a weak one.
 */
export async function verifiedEvent(ctx: RequestContext, rawBody: string, header: string | undefined) {
  const secret = requiredSecret(ctx, {
    name: "STRIPE_WEBHOOK_SECRET",
    protects: "Payments",
    developmentDefault: DEVELOPMENT_STRIPE_WEBHOOK_SECRET,
    defaultFor: "wrangler dev",
  });
  if (!header?.trim()) throw invalidSignature("missing");
  const timestamp = signedAt(header);
  if (timestamp === null) throw invalidSignature("malformed");
  const receivedAt = ctx.now().getTime();
  if (Math.floor(receivedAt / 1000) - timestamp > SIGNATURE_TOLERANCE_SECONDS) throw invalidSignature("expired");
  const StripeApi = await loadStripe();
  try {
    return await StripeApi.webhooks.constructEventAsync(
      rawBody,
      header,
      secret,
      SIGNATURE_TOLERANCE_SECONDS,
      StripeApi.createSubtleCryptoProvider(),
      receivedAt,
    );
  } catch (error) {
    if (error instanceof StripeApi.errors.StripeSignatureVerificationError) throw invalidSignature("mismatch");
    // Signed, but not an event this endpoint takes (a thin event, a body that is not JSON).
    throw badRequest("The webhook body is not a Stripe snapshot event");
  }
}
