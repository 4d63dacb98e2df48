import { expect } from "vitest";
import { decodeBase64Url, encodeBase64UrlText } from "../../src/lib/base64url";
import { type ApiResponse, api, type TestUser } from "./api";

/** What a refusal adds to a body: its code, and for a 412 the current tag. */
export interface Refusal {
  code?: string;
  details?: { etag?: string };
}

/** A request with precondition (or range) headers; the body is typed as `T` or a refusal. */
export const sendWith = <T = object>(
  user: TestUser,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<ApiResponse<T & Refusal>> => api<T & Refusal>(path, { method, auth: user, headers, body });

/** A write refused for its precondition: 412 `precondition_failed`, the current tag in `ETag` and `details.etag`. */
export function expectPreconditionFailed(res: ApiResponse<Refusal>, current: string | null, what = ""): void {
  expect(res.status, what).toBe(412);
  expect(res.body.code, what).toBe("precondition_failed");
  expect(res.headers.get("ETag"), what).toBe(current);
  expect(res.body.details?.etag, what).toBe(current);
}

/** A strong entity tag as RFC 9110 §8.8.3 writes it: quoted, no `W/`. */
export const STRONG_TAG = /^"[\x21\x23-\x7e]+"$/;

/** A tag's kind and the JSON text it carries (`"<kind>.<base64url of JSON>"`, lib/entity-tags.ts). */
export function tagContents(tag: string): { kind: string; json: string } {
  const [kind = "", encoded = ""] = tag.slice(1, -1).split(".");
  return { kind, json: new TextDecoder().decode(decodeBase64Url(encoded) ?? new Uint8Array()) };
}

/** A tag of `kind` carrying `json` exactly as written: how a client could craft one. */
export const craftedTag = (kind: string, json: string): string => `"${kind}.${encodeBase64UrlText(json)}"`;

/**
 * A read of `path` answers a strong ETag, the same on every read while nothing changes; If-None-Match
 * naming it (alone, weak, in a list, or `*`) is a 304 with no body and the tag; another tag answers
 * the representation; a failed If-Match is a 412 and a matching one the representation.
 */
export async function expectConditionalRead(user: TestUser, path: string): Promise<string> {
  const first = await api(path, { auth: user });
  expect(first.status).toBe(200);
  const tag = first.headers.get("ETag") ?? "";
  expect(tag).toMatch(STRONG_TAG);
  expect((await api(path, { auth: user })).headers.get("ETag")).toBe(tag);
  for (const ifNoneMatch of [tag, `W/${tag}`, `"other", ${tag}`, "*"]) {
    const res = await api(path, { auth: user, headers: { "If-None-Match": ifNoneMatch } });
    expect(res.status, ifNoneMatch).toBe(304);
    expect(res.body, ifNoneMatch).toBe("");
    expect(res.headers.get("ETag"), ifNoneMatch).toBe(tag);
  }
  const other = await api(path, { auth: user, headers: { "If-None-Match": '"other"' } });
  expect(other.status).toBe(200);
  expect(other.body).toEqual(first.body);
  expect((await api(path, { auth: user, headers: { "If-Match": tag } })).status).toBe(200);
  expectPreconditionFailed(await sendWith(user, "GET", path, { "If-Match": '"other"' }), tag);
  return tag;
}

/**
 * Two writers holding the same tag write at once: exactly one answers 200 (with a new tag), the
 * other 412 with that new tag, and what is stored is the winner's value.
 */
export async function expectRacingWriters(race: {
  read: () => Promise<ApiResponse<unknown>>;
  write: (tag: string, value: string) => Promise<ApiResponse<unknown>>;
  stored: () => Promise<unknown>;
}): Promise<void> {
  const tag = (await race.read()).headers.get("ETag") ?? "";
  expect(tag).toMatch(STRONG_TAG);
  const values = ["writer-a", "writer-b"];
  const answers = await Promise.all(values.map((value) => race.write(tag, value)));
  const statuses = answers.map((answer) => answer.status).sort();
  expect(statuses).toEqual([200, 412]);
  const winner = answers.findIndex((answer) => answer.status === 200);
  const loser = answers[1 - winner];
  expect(loser?.headers.get("ETag")).toBe(answers[winner]?.headers.get("ETag"));
  expect(await race.stored()).toBe(values[winner]);
}

/**
 * A write (or a creation: `before` null) answers a new strong ETag, and a read of the resource
 * that follows answers the same (RFC 9110 §8.8.3; §15.3.2 for a 201). Returns the tag.
 */
export async function expectWrittenTag(
  written: ApiResponse<unknown>,
  before: string | null,
  read: () => Promise<ApiResponse<unknown>>,
): Promise<string> {
  expect(written.status).toBeLessThan(300);
  const tag = written.headers.get("ETag") ?? "";
  expect(tag).toMatch(STRONG_TAG);
  expect(tag).not.toBe(before);
  const current = await read();
  expect(current.status).toBe(200);
  expect(current.headers.get("ETag")).toBe(tag);
  return tag;
}
