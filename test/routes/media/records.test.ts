import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import {
  createMedia,
  deleteMedia,
  downloadByBody,
  fetchUrl,
  getMetadata,
  listMedia,
  MEDIA,
  objectBytes,
  objectsOf,
  PNG_BYTES,
  patchMetadata,
  readMediaTarget,
  resolveMedia,
  searchMedia,
  setupMediaTarget,
  storageUrl,
  storedMedia,
  type UploadedMedia,
} from "../../helpers/media";

// Every route that names a file: 401 without a valid credential, and 404 for another user's
// file, which stays as it was (record, metadata and object).
const readBack = (owner: TestUser, target: UploadedMedia) => readMediaTarget(owner, target);
const byId = (name: string, method: string, suffix: string, body?: unknown) =>
  describeAuthMatrix<UploadedMedia>({
    name,
    method,
    path: (id) => `${MEDIA}/${id}${suffix}`,
    body,
    setup: setupMediaTarget,
    readBack,
  });
byId("GET /api/v1/media/{id}/url", "GET", "/url");
byId("GET /api/v1/media/{id}/metadata", "GET", "/metadata");
byId("PATCH /api/v1/media/{id}/metadata", "PATCH", "/metadata", { owner: false, intruder: true });
byId("DELETE /api/v1/media/{id}", "DELETE", "");

/** Targets named in the query string: the auth matrix's id is what goes there. */
type QueryTarget = UploadedMedia & { media: UploadedMedia };
const inQuery = (name: string, path: (id: string) => string, value: (media: UploadedMedia) => string) =>
  describeAuthMatrix<QueryTarget>({
    name,
    method: "GET",
    path,
    setup: async (owner) => {
      const media = await setupMediaTarget(owner);
      return { ...media, id: encodeURIComponent(value(media)), media };
    },
    readBack: (owner, target) => readMediaTarget(owner, target.media),
  });
inQuery(
  "GET /api/v1/media/url?path=",
  (id) => `${MEDIA}/url?path=${id}`,
  (media) => media.path,
);
inQuery(
  "GET /api/v1/media/download?url= (signed link)",
  (id) => `${MEDIA}/download?url=${id}`,
  (m) => m.signedUrl,
);
inQuery(
  "GET /api/v1/media/download?url= (storage URL)",
  (id) => `${MEDIA}/download?url=${id}`,
  (m) => storageUrl(m.path),
);

// Collections and bodies: the 401 checks (their 404s for another user's file follow below).
describeAuthMatrix({ name: "GET /api/v1/media", method: "GET", path: () => MEDIA });
describeAuthMatrix({ name: "GET /api/v1/media/search", method: "GET", path: () => `${MEDIA}/search?q=x` });
describeAuthMatrix({
  name: "POST /api/v1/media/resolve",
  method: "POST",
  path: () => `${MEDIA}/resolve`,
  body: { bucket: "media", path: "a/b" },
});
describeAuthMatrix({
  name: "POST /api/v1/media/download",
  method: "POST",
  path: () => `${MEDIA}/download`,
  body: { bucket: "media", path: "a/b" },
});

describe("another user's media through the body routes and the listings", () => {
  it("resolve and POST download: 404 for every way of naming it, which changes nothing", async () => {
    const owner = await createUser();
    const media = await setupMediaTarget(owner);
    const before = await readMediaTarget(owner, media);
    const intruder = await createUser();
    const bodies = [
      { bucket: "media", path: media.path },
      { url: media.signedUrl },
      { url: storageUrl(media.path) },
      { url: storageUrl(media.path, "sign") },
    ];
    for (const body of bodies) {
      for (const res of [await resolveMedia(intruder, body), await downloadByBody(intruder, body)]) {
        expectErrorBody(res, 404);
        expect(res.body).toMatchObject({ code: "not_found" });
      }
    }
    expect(await readMediaTarget(owner, media)).toEqual(before);
  });

  it("the listing and the search show only the caller's own files", async () => {
    const owner = await createUser();
    await createMedia(owner, { name: "shared-word.txt" });
    const intruder = await createUser();
    expect((await listMedia(intruder)).body).toEqual([]);
    expect((await searchMedia(intruder, "q=shared-word")).body).toEqual([]);
    expect((await listMedia(owner)).body).toHaveLength(1);
  });
});

describe("GET /api/v1/media", () => {
  it("lists the caller's files newest first, paginated, in one query round trip", async () => {
    const user = await createUser();
    const made: UploadedMedia[] = [];
    for (const name of ["a.txt", "b.txt", "c.txt"]) made.push(await createMedia(user, { name }));
    const all = await listMedia(user);
    expect(all.status).toBe(200);
    expect(all.body.map((m) => m.filename)).toEqual(["c.txt", "b.txt", "a.txt"]);
    const { signedUrl: _s, expires_at: _e, ...record } = made[2] as UploadedMedia;
    expect(all.body[0]).toEqual(record);
    expect(all.headers.get("X-Total-Count")).toBe("3");
    expect(all.queryRoundTrips).toBe(1);

    const page = await listMedia(user, "limit=2&offset=1");
    expect(page.body.map((m) => m.filename)).toEqual(["b.txt", "a.txt"]);
    expect(page.headers.get("X-Pagination-Limit")).toBe("2");
    expect(page.headers.get("X-Pagination-Offset")).toBe("1");
    expect(page.headers.get("X-Has-More")).toBe("false");
    expect((await listMedia(user, "limit=1")).headers.get("X-Has-More")).toBe("true");
    expect((await listMedia(user, "limit=500")).headers.get("X-Pagination-Limit")).toBe("100");
    expectErrorBody(await listMedia(user, "limit=0"), 400);
    expectErrorBody(await listMedia(user, "sort=name"), 400);
  });
});

describe("GET /api/v1/media/search", () => {
  async function library(user: TestUser) {
    await createMedia(user, {
      name: "Launch-Photo.png",
      bytes: PNG_BYTES,
      type: "image/png",
      metadata: { album: "Q3" },
    });
    await createMedia(user, { name: "notes.txt", metadata: { project: { name: "Zephyr launch" }, year: 2026 } });
    await createMedia(user, { name: "budget.csv", type: "text/csv", metadata: { tags: ["finance", "Q3"] } });
  }
  const names = async (user: TestUser, query: string) => {
    const res = await searchMedia(user, query);
    expect(res.status, query).toBe(200);
    return res.body.map((m) => m.filename);
  };

  it("q matches the filename and the metadata's keys and values, every word, ignoring ASCII case", async () => {
    const user = await createUser();
    await library(user);
    expect(await names(user, "q=launch")).toEqual(["notes.txt", "Launch-Photo.png"]);
    expect(await names(user, "q=LAUNCH%20photo")).toEqual(["Launch-Photo.png"]);
    expect(await names(user, "q=q3")).toEqual(["budget.csv", "Launch-Photo.png"]);
    expect(await names(user, "q=finance")).toEqual(["budget.csv"]);
    expect(await names(user, "q=project")).toEqual(["notes.txt"]);
    expect(await names(user, "q=2026")).toEqual(["notes.txt"]);
    expect(await names(user, "q=zephyr%20budget")).toEqual([]);
    // Taken literally: no wildcards, no SQL.
    expect(await names(user, "q=%25")).toEqual([]);
    expect(await names(user, `q=${encodeURIComponent("' OR 1=1 --")}`)).toEqual([]);
    expect(await names(user, "q=")).toHaveLength(3);
  });

  it("content_type is a prefix; created_after and created_before bound the upload time", async () => {
    const user = await createUser();
    await library(user);
    expect(await names(user, "content_type=image/")).toEqual(["Launch-Photo.png"]);
    expect(await names(user, "content_type=text/")).toEqual(["budget.csv", "notes.txt"]);
    expect(await names(user, "content_type=text/csv")).toEqual(["budget.csv"]);
    expect(await names(user, "content_type=TEXT/")).toEqual(["budget.csv", "notes.txt"]);
    const all = (await searchMedia(user, "")).body;
    const middle = all[1]?.created_at ?? "";
    expect(await names(user, `created_after=${encodeURIComponent(middle)}`)).toEqual(["budget.csv"]);
    expect(await names(user, `created_before=${encodeURIComponent(middle)}`)).toEqual(["Launch-Photo.png"]);
    expect(await names(user, "created_after=2000-01-01T00:00:00%2B02:00&content_type=image/")).toEqual([
      "Launch-Photo.png",
    ]);
    expect(await names(user, "created_before=2000-01-01T00:00:00Z")).toEqual([]);
    const paged = await searchMedia(user, "q=t&limit=1");
    expect(paged.headers.get("X-Total-Count")).toBe("3");
    expect(paged.headers.get("X-Has-More")).toBe("true");
  });

  it("created_after and created_before near the years 0000 and 9999 compare as instants", async () => {
    const user = await createUser();
    await library(user);
    const everything = ["budget.csv", "notes.txt", "Launch-Photo.png"];
    const q = (instant: string) => encodeURIComponent(instant);
    // In UTC these fall in the year 10000 or -1, which ISO strings write as +010000 / -000001.
    expect(await names(user, `created_before=${q("9999-12-31T23:00:00-05:00")}`)).toEqual(everything);
    expect(await names(user, `created_after=${q("9999-12-31T23:00:00-05:00")}`)).toEqual([]);
    expect(await names(user, `created_before=${q("9999-12-31T23:59:59.999Z")}`)).toEqual(everything);
    expect(await names(user, `created_after=${q("9999-12-31T23:59:59Z")}`)).toEqual([]);
    expect(await names(user, `created_after=${q("0000-01-01T00:30:00+01:00")}`)).toEqual(everything);
    expect(await names(user, `created_before=${q("0000-01-01T00:30:00+01:00")}`)).toEqual([]);
    expect(await names(user, `created_after=${q("0000-01-01T00:00:00Z")}`)).toEqual(everything);
  });

  it("refuses malformed parameters with 400", async () => {
    const user = await createUser();
    for (const query of ["created_after=yesterday", "content_type=image%2F*", `q=${"x".repeat(201)}`, "order=asc"]) {
      expectErrorBody(await searchMedia(user, query), 400);
    }
  });
});

describe("metadata", () => {
  it("round trip: set at upload, read, merged by RFC 7396 (nested merge, null removes), read again", async () => {
    const user = await createUser();
    const media = await createMedia(user, {
      metadata: { title: "Launch", camera: { make: "Fuji", lens: "23mm" }, draft: true },
    });
    const read = await getMetadata(user, media.id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      id: media.id,
      metadata: { title: "Launch", camera: { make: "Fuji", lens: "23mm" }, draft: true },
      updated_at: media.updated_at,
    });

    const patched = await patchMetadata(user, media.id, { camera: { lens: null, iso: 400 }, draft: null, tags: ["a"] });
    expect(patched.status).toBe(200);
    expect(patched.body.metadata).toEqual({ title: "Launch", camera: { make: "Fuji", iso: 400 }, tags: ["a"] });
    expect(patched.body.updated_at > media.updated_at).toBe(true);
    expect(patched.queryRoundTrips).toBe(1);
    expect((await getMetadata(user, media.id)).body).toEqual(patched.body);
    expect(JSON.parse((await storedMedia(media.id))?.metadata ?? "")).toEqual(patched.body.metadata);

    const mergePatch = await patchMetadata(
      user,
      media.id,
      { title: "Renamed" },
      {
        "Content-Type": "application/merge-patch+json",
      },
    );
    expect(mergePatch.status).toBe(200);
    expect(mergePatch.body.metadata).toMatchObject({ title: "Renamed", tags: ["a"] });
    // The listing shows the same metadata.
    expect((await listMedia(user)).body[0]?.metadata).toEqual(mergePatch.body.metadata);
  });

  it("concurrent patches of different keys keep each other's changes", async () => {
    const user = await createUser();
    const media = await createMedia(user);
    await Promise.all(Array.from({ length: 12 }, (_, i) => patchMetadata(user, media.id, { [`k${i}`]: i })));
    const keys = Object.keys((await getMetadata(user, media.id)).body.metadata).sort();
    expect(keys).toEqual(Array.from({ length: 12 }, (_, i) => `k${i}`).sort());
  });

  it("400 for a body that is not an object, too deep, or a result above 16 KiB; nothing changes", async () => {
    const user = await createUser();
    const media = await createMedia(user, { metadata: { keep: "me" } });
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 40; i++) deep = { nested: deep };
    const refusals = [
      await patchMetadata(user, media.id, [1, 2]),
      await patchMetadata(user, media.id, "text"),
      await patchMetadata(user, media.id, deep),
      await patchMetadata(user, media.id, { big: "x".repeat(17 * 1024) }),
    ];
    for (const res of refusals) expectErrorBody(res, 400);
    // Two patches that each fit, whose merge would not.
    expect((await patchMetadata(user, media.id, { a: "x".repeat(9000) })).status).toBe(200);
    const tooMuch = await patchMetadata(user, media.id, { b: "y".repeat(9000) });
    expectErrorBody(tooMuch, 400);
    expect(tooMuch.body).toMatchObject({ details: { field: "metadata", max_bytes: 16384 } });
    expect(Object.keys((await getMetadata(user, media.id)).body.metadata).sort()).toEqual(["a", "keep"]);
  });

  it("404 for an unknown id", async () => {
    const user = await createUser();
    expectErrorBody(await getMetadata(user, crypto.randomUUID()), 404);
    expectErrorBody(await patchMetadata(user, crypto.randomUUID(), { a: 1 }), 404);
  });
});

describe("DELETE /api/v1/media/{id}", () => {
  it("removes the object and the record; links stop working; a second delete is a 404", async () => {
    const user = await createUser();
    const media = await createMedia(user, { bytes: PNG_BYTES, type: "image/png" });
    const other = await createMedia(user);
    expect(await objectBytes(media.path)).toEqual(PNG_BYTES);

    const res = await deleteMedia(user, media.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: "Media deleted", id: media.id });
    expect(await storedMedia(media.id)).toBeNull();
    expect(await env.MEDIA.head(media.path)).toBeNull();
    expect(await objectsOf(user.id)).toEqual([other.path]);
    expect((await fetchUrl(media.signedUrl)).status).toBe(404);
    expectErrorBody(await getMetadata(user, media.id), 404);
    expect((await listMedia(user)).body.map((m) => m.id)).toEqual([other.id]);
    expectErrorBody(await deleteMedia(user, media.id), 404);
    expect((await api(`${MEDIA}/${other.id}/metadata`, { auth: user })).status).toBe(200);
  });
});
