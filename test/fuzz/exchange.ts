/**
 * Sends one planned request through the Worker and judges the response: no 5xx, every
 * error is the JSON envelope, a refused write stored nothing, and nobody's data changed
 * but the data of the user the request authenticated as.
 */
import { env, SELF } from "cloudflare:test";
import { signSessionToken } from "../helpers/session-token";
import type { BodyPlan, Plan, Segment } from "./arbitraries";
import type { Operation } from "./openapi";
import { fingerprints, type World } from "./state";
import { json, Obj, plain, type Resolver, type Tmpl } from "./template";
import type { AuthPlan, PathShape } from "./values";

export type ViolationKind = "5xx" | "envelope" | "stored" | "foreign-write";

export interface Exchange {
  op: Operation;
  labels: string[];
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The body as sent, for messages (cut). */
  bodyText: string;
  bodyBytes: number;
  status: number;
  responseHeaders: Record<string, string>;
  responseText: string;
  violations: { kind: ViolationKind; detail: string }[];
}

export interface Checks {
  requireErrorCode: boolean;
}

const ORIGIN = "http://workspace.test";
const SHOWN = 600;

/** The path in another shape: the same route to a lenient router, another one (or none) to a strict one. */
function reshape(path: string, shape: PathShape): string {
  switch (shape) {
    case "trailing-slash":
      return `${path}/`;
    case "upper-case":
      return path.toUpperCase();
    case "double-slash":
      return path.replace(/\//g, "//");
    case "dot-segment":
      return path.replace(/^\/([^/]+)/, "/$1/%2e");
    case "encoded-letter":
      return path.replace(/[a-z]/, (letter) => `%${letter.charCodeAt(0).toString(16)}`);
  }
}

/** Percent-encodes what encodeURIComponent can; lone surrogates go in raw (the URL parser replaces them). */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text;
  }
}

const segmentText = (segment: Segment, ids: Resolver) => {
  const text = plain(segment.value, ids);
  return segment.raw ? text : encode(text);
};

function formEncode(value: Tmpl, ids: Resolver): string {
  const entries = value instanceof Obj ? value.entries : [["value", value] as const];
  return entries.map(([k, v]) => `${encode(plain(k, ids))}=${encode(plain(v, ids))}`).join("&");
}

function multipart(value: Tmpl, ids: Resolver): string {
  const entries = value instanceof Obj ? value.entries : [["value", value] as const];
  const parts = entries.map(
    ([k, v]) => `--fuzzboundary\r\nContent-Disposition: form-data; name="${plain(k, ids)}"\r\n\r\n${plain(v, ids)}\r\n`,
  );
  return `${parts.join("")}--fuzzboundary--\r\n`;
}

function bodyOf(body: BodyPlan, ids: Resolver): { payload?: string | Uint8Array; contentType?: string } {
  switch (body.kind) {
    case "none":
      return {};
    case "json":
      return { payload: json(body.value, ids), contentType: "application/json" };
    case "text":
      return { payload: body.text, contentType: "application/json" };
    case "truncated": {
      const text = json(body.value, ids);
      return { payload: text.slice(0, body.cut % Math.max(text.length, 1)), contentType: "application/json" };
    }
    case "bytes":
      return { payload: new Uint8Array(body.bytes), contentType: "application/json" };
    case "form":
      return { payload: formEncode(body.value, ids), contentType: "application/x-www-form-urlencoded" };
    case "multipart":
      return { payload: multipart(body.value, ids), contentType: "multipart/form-data; boundary=fuzzboundary" };
  }
}

async function authorization(op: Operation, auth: AuthPlan, world: World): Promise<string | undefined> {
  switch (auth.kind) {
    case "self":
      return op.secured ? `Bearer ${world.pool.user.key}` : undefined;
    case "self-lowercase":
      return `bearer ${world.pool.user.key}`;
    case "self-bare":
      return world.pool.user.key;
    case "other":
      return `Bearer ${world.other.user.key}`;
    case "session": {
      const subjects = { self: world.pool.user.id, other: world.other.user.id, unknown: crypto.randomUUID() };
      const sub = auth.sub === "number" ? 42 : auth.sub === "empty" ? "" : subjects[auth.sub];
      const secret = auth.secret === "right" ? env.SESSION_SECRET : "not-the-session-secret";
      return `Bearer ${await signSessionToken({ sub, exp: Math.floor(Date.now() / 1000) + auth.ttl }, secret ?? "")}`;
    }
    case "header":
      return auth.value ?? undefined;
  }
}

/** Whose data a request may change: the user it authenticates as, if any. */
function actorOf(op: Operation, auth: AuthPlan): "self" | "other" | "none" {
  switch (auth.kind) {
    case "self":
      return op.secured ? "self" : "none";
    case "self-lowercase":
    case "self-bare":
      return "self";
    case "other":
      return "other";
    case "session":
      return auth.ttl > 0 && auth.secret === "right" && (auth.sub === "self" || auth.sub === "other")
        ? auth.sub
        : "none";
    case "header":
      return "none";
  }
}

/** The fuzzing users' keys and session tokens, named rather than shown. */
function redact(value: string, world: World): string {
  return value
    .replace(world.pool.user.key, "<fuzz user key>")
    .replace(world.other.user.key, "<other user key>")
    .replace(/Bearer ey[\w-]+\.[\w-]+\.[\w-]+/, "Bearer <session token>");
}

const cut = (text: string, limit = SHOWN) =>
  text.length > limit ? `${text.slice(0, limit)}… (${text.length} chars)` : text;

/** Fingerprints of what is stored, kept between requests while nothing was accepted. */
export interface Stored {
  self?: string;
  other?: string;
}

let clientAddresses = 0;
/** 10.0.0.1, 10.0.0.2, ... (a private range): one address per request. */
function nextClientAddress(): string {
  clientAddresses++;
  return `10.${(clientAddresses >> 16) & 255}.${(clientAddresses >> 8) & 255}.${clientAddresses & 255}`;
}

export async function exchange(
  op: Operation,
  plan: Plan,
  labels: string[],
  world: World,
  checks: Checks,
  stored: Stored,
): Promise<Exchange> {
  const ids = world.resolver();
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const segment = plan.path[name];
    return segment ? segmentText(segment, ids) : "";
  });
  const shapedPath = plan.pathShape ? reshape(path, plan.pathShape) : path;
  const query = plan.query.map((q) => `${encode(q.name)}=${segmentText(q, ids)}`).join("&");
  const url = `${ORIGIN}${shapedPath}${query ? `?${query}` : ""}`;
  const { payload, contentType } = bodyOf(plan.body, ids);

  const method = plan.method ?? op.method;
  // Each request from its own client address: open routes count requests per address, and one shared
  // address would leave them answering 429 to most of the run instead of being fuzzed.
  const headers: Record<string, string> = { "CF-Connecting-IP": nextClientAddress(), ...plan.headers };
  const auth = await authorization(op, plan.auth, world);
  if (auth !== undefined) headers.Authorization = auth;
  const type = plan.contentType === undefined ? contentType : plan.contentType;
  if (payload !== undefined && type !== null && type !== undefined) headers["Content-Type"] = type;

  const sendsBody = payload !== undefined && method !== "GET" && method !== "HEAD";
  const isWrite = !["GET", "HEAD", "OPTIONS"].includes(method);
  const self = world.pool.user.id;
  const other = world.other.user.id;
  if (isWrite && (stored.self === undefined || stored.other === undefined)) {
    [stored.self, stored.other] = await fingerprints([self, other]);
  }

  const response = await SELF.fetch(url, { method, headers, ...(sendsBody ? { body: payload } : {}) });
  const responseHeaders = Object.fromEntries(response.headers);
  const responseType = response.headers.get("Content-Type") ?? "";
  const bytes = new Uint8Array(await response.arrayBuffer());
  const responseText = /json|text/.test(responseType)
    ? new TextDecoder().decode(bytes)
    : `<${bytes.length} bytes of ${responseType || "unknown type"}>`;

  const bodyText =
    payload === undefined || !sendsBody
      ? ""
      : typeof payload === "string"
        ? payload
        : `<bytes ${[...payload].map((b) => b.toString(16).padStart(2, "0")).join(" ")}>`;
  const result: Exchange = {
    op,
    labels,
    method,
    url: redact(url.slice(ORIGIN.length), world),
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, cut(redact(v, world), 120)])),
    bodyText: cut(bodyText),
    bodyBytes: typeof payload === "string" ? new TextEncoder().encode(payload).length : (payload?.length ?? 0),
    status: response.status,
    responseHeaders,
    responseText: cut(responseText),
    violations: [],
  };

  if (response.status >= 500) result.violations.push({ kind: "5xx", detail: `status ${response.status}` });
  if (response.status >= 400) {
    const problem = envelopeProblem(response.headers.get("Content-Type"), responseText, checks);
    if (problem) result.violations.push({ kind: "envelope", detail: problem });
  }
  if (isWrite) {
    const refused = response.status >= 400 && response.status < 500;
    const [selfAfter, otherAfter] = await fingerprints([self, other]);
    // Whose data the request may change: the user it authenticated as, if any.
    const actor = actorOf(op, plan.auth);
    const changed = (who: "self" | "other") =>
      who === "self" ? selfAfter !== stored.self : otherAfter !== stored.other;
    const describeChange = (who: "self" | "other") =>
      who === "self"
        ? `the fuzzing user's stored data changed:\n    before ${stored.self}\n    after  ${selfAfter}`
        : `another user's stored data changed:\n    before ${stored.other}\n    after  ${otherAfter}`;
    for (const who of ["self", "other"] as const) {
      if (!changed(who)) continue;
      if (who !== actor) {
        result.violations.push({
          kind: "foreign-write",
          detail: `status ${response.status}, but ${describeChange(who)}`,
        });
      } else if (refused) {
        result.violations.push({
          kind: "stored",
          detail: `refused with ${response.status}, but ${describeChange(who)}`,
        });
      }
    }
    stored.self = selfAfter;
    stored.other = otherAfter;
    // Accepted (or failed): aim later ids at what exists now; fixtures made again change the fingerprint.
    if (!refused && (await world.refresh())) stored.self = undefined;
  }
  return result;
}

/** Why an error response is not `{error: string, details?: object, request_id: string}` (plus `code` when required), or undefined. */
function envelopeProblem(contentType: string | null, text: string, checks: Checks): string | undefined {
  if (!contentType?.includes("application/json")) return `Content-Type is ${JSON.stringify(contentType)}, not JSON`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return "body is not valid JSON";
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "body is not a JSON object";
  const record = body as Record<string, unknown>;
  if (typeof record.error !== "string" || record.error === "") return "`error` is not a non-empty string";
  if ("details" in record) {
    const details = record.details;
    if (typeof details !== "object" || details === null || Array.isArray(details)) return "`details` is not an object";
  }
  if (checks.requireErrorCode && (typeof record.code !== "string" || record.code === "")) {
    return "`code` is not a non-empty string";
  }
  if (typeof record.request_id !== "string" || record.request_id === "") {
    return "`request_id` is not a non-empty string";
  }
  const extra = Object.keys(record).filter((k) => !["error", "details", "code", "request_id"].includes(k));
  if (extra.length > 0) return `unexpected keys ${JSON.stringify(extra)}`;
  return undefined;
}

/** The failure message: the operation, the request as sent and the response. */
export function formatExchange(x: Exchange): string {
  const lines = [
    `${x.op.id} (${x.op.method} ${x.op.path})`,
    ...x.violations.map((v) => `  violation: ${v.kind}: ${v.detail}`),
    `  mutations: ${x.labels.length > 0 ? x.labels.join(", ") : "(none: valid-ish request)"}`,
    "  request:",
    `    ${x.method} ${cut(x.url, 300)}`,
    `    headers: ${JSON.stringify(x.headers)}`,
    `    body (${x.bodyBytes} bytes): ${x.bodyText || "(none)"}`,
    "  response:",
    `    status: ${x.status}`,
    `    content-type: ${x.responseHeaders["content-type"] ?? "(none)"}`,
    `    body: ${x.responseText || "(empty)"}`,
  ];
  return lines.join("\n");
}
