import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createUser } from "../../helpers/api";
import {
  expectConditionalRead,
  expectPreconditionFailed,
  expectRacingWriters,
  expectWrittenTag,
  sendWith,
} from "../../helpers/conditional";
import { createMedia, MEDIA } from "../../helpers/media";

const send = sendWith<{ metadata?: Record<string, unknown> }>;

const storedMetadata = async (id: string) =>
  (await env.DB.prepare("SELECT metadata, updated_at FROM media WHERE id = ?").bind(id).first()) ?? null;

describe("media metadata validators (RFC 9110 §8.8.3, §13.1)", () => {
  it("a read answers a strong ETag; If-None-Match with it is 304 with no body", async () => {
    const user = await createUser();
    const media = await createMedia(user);
    await expectConditionalRead(user, `${MEDIA}/${media.id}/metadata`);
  });

  it("PATCH answers the new tag, even twice within a millisecond; a stale If-Match is a 412 and writes nothing", async () => {
    const user = await createUser();
    const media = await createMedia(user);
    const path = `${MEDIA}/${media.id}/metadata`;
    const stale = (await send(user, "GET", path, {})).headers.get("ETag") ?? "";
    const first = await send(user, "PATCH", path, { "If-Match": stale }, { alt: "one" });
    expect(first.status).toBe(200);
    const second = await send(user, "PATCH", path, { "If-Match": first.headers.get("ETag") ?? "" }, { alt: "two" });
    const current = await expectWrittenTag(second, first.headers.get("ETag"), () => send(user, "GET", path, {}));
    expect(current).not.toBe(stale);
    const stored = await storedMetadata(media.id);
    const res = await send(user, "PATCH", path, { "If-Match": stale }, { alt: "clobber" });
    expectPreconditionFailed(res, current);
    expect(await storedMetadata(media.id)).toEqual(stored);
  });

  it("two writers racing with one tag: exactly one wins, the other is a 412, the stored value is the winner's", async () => {
    const user = await createUser();
    const media = await createMedia(user);
    const path = `${MEDIA}/${media.id}/metadata`;
    await expectRacingWriters({
      read: () => send(user, "GET", path, {}),
      write: (tag, value) => send(user, "PATCH", path, { "If-Match": tag }, { alt: value }),
      stored: async () => (await send(user, "GET", path, {})).body.metadata?.alt,
    });
  });

  it("If-Match: * writes while it exists; another user's media is a 404 whatever the preconditions", async () => {
    const owner = await createUser();
    const other = await createUser();
    const media = await createMedia(owner);
    const path = `${MEDIA}/${media.id}/metadata`;
    expect((await send(owner, "PATCH", path, { "If-Match": "*" }, { a: 1 })).status).toBe(200);
    expect((await send(other, "PATCH", path, { "If-Match": '"stale"' }, { a: 2 })).status).toBe(404);
    expect((await send(other, "GET", path, { "If-None-Match": "*" })).status).toBe(404);
  });
});
