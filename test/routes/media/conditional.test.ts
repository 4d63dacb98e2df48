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
import { createMedia, MEDIA, objectsOf, storedMedia, uploadMedia } from "../../helpers/media";

const send = sendWith<{ metadata?: Record<string, unknown> }>;

const storedMetadata = async (id: string) =>
  (await env.DB.prepare("SELECT metadata, updated_at FROM media WHERE id = ?").bind(id).first()) ?? null;

describe("media metadata validators (RFC 9110 §8.8.3, §13.1)", () => {
  it("a read answers a strong ETag; If-None-Match with it is 304 with no body", async () => {
    const user = await createUser();
    const media = await createMedia(user);
    await expectConditionalRead(user, `${MEDIA}/${media.id}/metadata`);
  });

  it("an upload's 201 carries the ETag of its metadata (its Location), as GET of it answers (RFC 9110 §15.3.2)", async () => {
    const user = await createUser();
    const res = await uploadMedia(user, { metadata: { album: "launch" } });
    expect(res.status).toBe(201);
    const location = res.headers.get("Location") ?? "";
    expect(location).toBe(`${MEDIA}/${res.body.id}/metadata`);
    const tag = await expectWrittenTag(res, null, () => send(user, "GET", location, {}));
    expect((await send(user, "PATCH", location, { "If-Match": tag }, { album: "launch-2" })).status).toBe(200);
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

  it("DELETE takes If-Match against the metadata's tag in its write: stale is a 412 with the current tag and deletes nothing", async () => {
    const user = await createUser();
    const media = await createMedia(user);
    const path = `${MEDIA}/${media.id}/metadata`;
    const stale = (await send(user, "GET", path, {})).headers.get("ETag") ?? "";
    const current = (await send(user, "PATCH", path, {}, { changed: true })).headers.get("ETag");
    const stored = await storedMedia(media.id);
    const refused: Record<string, string>[] = [
      { "If-Match": stale },
      { "If-Match": `"other", ${stale}` },
      { "If-None-Match": "*" },
    ];
    for (const headers of refused) {
      expectPreconditionFailed(
        await send(user, "DELETE", `${MEDIA}/${media.id}`, headers),
        current,
        JSON.stringify(headers),
      );
    }
    expect(await storedMedia(media.id)).toEqual(stored);
    expect(await objectsOf(user.id)).toEqual([media.path]);
    expect((await send(user, "DELETE", `${MEDIA}/${media.id}`, { "If-Match": current ?? "" })).status).toBe(200);
    expect(await storedMedia(media.id)).toBeNull();
    expect(await objectsOf(user.id)).toEqual([]);
    // Gone: the tag it had names nothing now, and a 404 says so.
    expect((await send(user, "DELETE", `${MEDIA}/${media.id}`, { "If-Match": current ?? "" })).status).toBe(404);
  });

  it("DELETE with If-Match: * deletes while it exists; another user's media is a 404 and stays", async () => {
    const owner = await createUser();
    const other = await createUser();
    const media = await createMedia(owner);
    const tag = (await send(owner, "GET", `${MEDIA}/${media.id}/metadata`, {})).headers.get("ETag") ?? "";
    for (const ifMatch of ['"stale"', tag, "*"]) {
      expect((await send(other, "DELETE", `${MEDIA}/${media.id}`, { "If-Match": ifMatch })).status, ifMatch).toBe(404);
    }
    expect(await objectsOf(owner.id)).toEqual([media.path]);
    expect((await send(owner, "DELETE", `${MEDIA}/${media.id}`, { "If-Match": "*" })).status).toBe(200);
    expect(await storedMedia(media.id)).toBeNull();
  });

  it("a deletion left half-way (record `deleting`) is finished by a DELETE without preconditions, and named by no tag", async () => {
    const user = await createUser();
    const media = await createMedia(user);
    const tag = (await send(user, "GET", `${MEDIA}/${media.id}/metadata`, {})).headers.get("ETag") ?? "";
    await env.DB.prepare("UPDATE media SET state = 'deleting' WHERE id = ?").bind(media.id).run();
    expect((await send(user, "DELETE", `${MEDIA}/${media.id}`, { "If-Match": tag })).status).toBe(404);
    expect((await send(user, "DELETE", `${MEDIA}/${media.id}`, {})).status).toBe(200);
    expect(await storedMedia(media.id)).toBeNull();
  });
});
