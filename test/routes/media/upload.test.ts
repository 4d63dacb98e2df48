import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ALL_SCOPES } from "../../../src/auth/scopes";
import worker from "../../../src/index";
import { actingAs, createContext } from "../../../src/lib/context";
import { ApiError } from "../../../src/lib/errors";
import { DEFAULT_MAX_UPLOAD_BYTES, MULTIPART_ALLOWANCE_BYTES } from "../../../src/services/media/config";
import { readUploadRequest } from "../../../src/services/media/upload-request";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { ISO_DATE_TIME, UUID } from "../../helpers/blocks";
import {
  bytesOf,
  createMedia,
  fetchUrl,
  MEDIA,
  ORIGIN,
  objectBytes,
  objectsOf,
  PDF_BYTES,
  PNG_BYTES,
  storedMedia,
  storedMediaOf,
  uploadForm,
  uploadMedia,
  uploadRaw,
} from "../../helpers/media";

describeAuthMatrix({ name: "POST /api/v1/media/upload", method: "POST", path: () => `${MEDIA}/upload`, body: {} });

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Nothing of `user` is stored: no record in any state, no object in their folder. */
async function expectNothingStored(user: TestUser) {
  expect(await storedMediaOf(user.id)).toEqual([]);
  expect(await objectsOf(user.id)).toEqual([]);
}

describe("POST /api/v1/media/upload", () => {
  it("stores the record and the object together: 201 with the record, a signed URL and its expiry", async () => {
    const user = await createUser();
    const res = await uploadMedia(user, {
      bytes: PNG_BYTES,
      name: "Launch photo.png",
      type: "image/png",
      metadata: { album: "Launch", tags: ["team"] },
    });
    expect(res.status).toBe(201);
    const id = res.body.id;
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      bucket: "media",
      path: `${user.id}/${id}-Launch-photo.png`,
      filename: "Launch photo.png",
      content_type: "image/png",
      size: PNG_BYTES.length,
      sha256: await sha256Hex(PNG_BYTES),
      metadata: { album: "Launch", tags: ["team"] },
      created_by: user.id,
      created_at: expect.stringMatching(ISO_DATE_TIME),
      updated_at: res.body.created_at,
      signedUrl: expect.stringMatching(/^http:\/\/workspace\.test\/media\/signed\?bucket=media&path=/),
      expires_at: expect.stringMatching(ISO_DATE_TIME),
    });
    // The default lifetime: one hour.
    const lifetime = Date.parse(res.body.expires_at) - Date.parse(res.body.created_at);
    expect(lifetime).toBeGreaterThan(3590_000);
    expect(lifetime).toBeLessThanOrEqual(3600_000);

    expect(await storedMedia(id)).toMatchObject({ state: "ready", path: res.body.path, size: PNG_BYTES.length });
    expect(await objectBytes(res.body.path)).toEqual(PNG_BYTES);
    const object = await env.MEDIA.head(res.body.path);
    expect(object?.httpMetadata?.contentType).toBe("image/png");
    expect(object?.customMetadata).toEqual({ media_id: id, created_by: user.id });
    expect(object?.checksums.sha256 && [...new Uint8Array(object.checksums.sha256)].length).toBe(32);
    // The pending insert and the finalize: two query round trips.
    expect(res.queryRoundTrips).toBe(2);
  });

  it("takes the `filename` field over the part's own name, keeping only its last segment", async () => {
    const user = await createUser();
    const named = await createMedia(user, { name: "ignored.txt", filename: "Résumé 2026.txt" });
    expect(named.filename).toBe("Résumé 2026.txt");
    expect(named.path).toBe(`${user.id}/${named.id}-Resume-2026.txt`);
    const traversal = await createMedia(user, { name: "../../etc/passwd" });
    expect(traversal.filename).toBe("passwd");
    expect(traversal.path.startsWith(`${user.id}/`)).toBe(true);
    const odd = await createMedia(user, { name: "###" });
    expect(odd.path).toBe(`${user.id}/${odd.id}-file`);
  });

  it("accepts JSON with the file in base64", async () => {
    const user = await createUser();
    const res = await api<Record<string, unknown>>(`${MEDIA}/upload`, {
      method: "POST",
      auth: user,
      body: {
        content_base64: btoa("hello json"),
        filename: "hello.md",
        content_type: "text/markdown",
        metadata: { a: 1 },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      filename: "hello.md",
      content_type: "text/markdown",
      size: 10,
      metadata: { a: 1 },
    });
    expect(await objectBytes(res.body.path as string)).toEqual(bytesOf("hello json"));
  });

  it("400 for a missing file, an empty one, a text field named file, or fields it does not know; nothing stored", async () => {
    const user = await createUser();
    const cases: [string, Parameters<typeof uploadMedia>[1]][] = [
      ["no file part", { noFile: true, filename: "x.txt" }],
      ["an empty file", { bytes: new Uint8Array(0) }],
      ["an unknown field", { fields: { folder: "elsewhere" } }],
      ["metadata that is not JSON", { metadata: "{not json" }],
      ["metadata that is not an object", { metadata: "[1, 2]" }],
      ["an empty filename", { filename: "   " }],
      ["a filename too long", { filename: "a".repeat(256) }],
    ];
    for (const [what, options] of cases) {
      const res = await uploadMedia(user, options);
      expectErrorBody(res, 400);
      expect(res.body, what).toMatchObject({ code: "validation_failed" });
    }
    const textFile = new FormData();
    textFile.append("file", "just text");
    const res = await uploadRaw(user, textFile);
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { field: "file" } });
    await expectNothingStored(user);
  });

  it("400 for a multipart body that cannot be read, 415 for another Content-Type, 400 for bad JSON uploads", async () => {
    const user = await createUser();
    const garbage = await uploadRaw(user, "--x\r\nnot a multipart body", { "Content-Type": "multipart/form-data" });
    expectErrorBody(garbage, 400);
    const noBoundaryMatch = await uploadRaw(user, "garbage", { "Content-Type": "multipart/form-data; boundary=zz" });
    expectErrorBody(noBoundaryMatch, 400);
    const text = await uploadRaw(user, "hello", { "Content-Type": "text/plain" });
    expectErrorBody(text, 415);
    expect(text.body).toMatchObject({ code: "unsupported_media_type" });
    const badJson = await uploadRaw(user, "{", { "Content-Type": "application/json" });
    expect(badJson.body).toMatchObject({ code: "malformed_json" });
    const notBase64 = await api(`${MEDIA}/upload`, { method: "POST", auth: user, body: { content_base64: "%%%" } });
    expectErrorBody(notBase64, 400);
    const extra = await api(`${MEDIA}/upload`, { method: "POST", auth: user, body: { content_base64: "aGk=", x: 1 } });
    expectErrorBody(extra, 400);
    await expectNothingStored(user);
  });

  it("413 for a file one byte above the limit (25 MiB by default), storing nothing", async () => {
    const user = await createUser();
    const res = await uploadMedia(user, { bytes: new Uint8Array(DEFAULT_MAX_UPLOAD_BYTES + 1), name: "big.bin" });
    expectErrorBody(res, 413);
    expect(res.body).toEqual({
      error: expect.any(String),
      code: "payload_too_large",
      details: { max_bytes: DEFAULT_MAX_UPLOAD_BYTES },
    });
    await expectNothingStored(user);
  });

  it("413 before reading a body that announces more than the limit allows", async () => {
    const user = await createUser();
    const body = new Uint8Array(DEFAULT_MAX_UPLOAD_BYTES + MULTIPART_ALLOWANCE_BYTES + 1024);
    const res = await uploadRaw(user, body, { "Content-Type": "multipart/form-data; boundary=zz" });
    expectErrorBody(res, 413);
    expect(res.body).toMatchObject({ code: "payload_too_large" });
    await expectNothingStored(user);
  });
});

describe("the upload limit is configuration (MEDIA_MAX_UPLOAD_BYTES), held while the body is read", () => {
  const limited = (maxBytes: number) =>
    actingAs(createContext({ env: { ...env, MEDIA_MAX_UPLOAD_BYTES: String(maxBytes) } }), {
      userId: crypto.randomUUID(),
      via: "api_key",
      apiKeyId: null,
      scopes: ALL_SCOPES,
    });
  /** A multipart upload request streamed (no Content-Length), as a client sending chunks would. */
  const multipart = (bytes: Uint8Array) => {
    const response = new Response(uploadForm({ bytes, name: "f.bin" }));
    return new Request(`${ORIGIN}${MEDIA}/upload`, {
      method: "POST",
      headers: { "Content-Type": response.headers.get("Content-Type") ?? "" },
      body: response.body,
    });
  };

  it("a file of exactly the limit is read; one byte more is a 413", async () => {
    const ctx = limited(2048);
    const exact = await readUploadRequest(ctx, multipart(new Uint8Array(2048)));
    expect(exact.file.size).toBe(2048);
    await expect(readUploadRequest(ctx, multipart(new Uint8Array(2049)))).rejects.toMatchObject({
      status: 413,
      details: { max_bytes: 2048 },
    });
  });

  it("a streamed body past the limit and its framing allowance fails at that byte (413, not 400)", async () => {
    const ctx = limited(1024);
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const request = new Request(`${ORIGIN}${MEDIA}/upload`, {
      method: "POST",
      headers: { "Content-Type": "multipart/form-data; boundary=zz" },
      body: endless,
    });
    const failure = await readUploadRequest(ctx, request).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 413 });
    // It stopped reading soon after the limit, not at the end of a body that has none.
    expect(pulled).toBeLessThan(1024 + MULTIPART_ALLOWANCE_BYTES + 4 * 64 * 1024);
  });

  it("a JSON upload is capped at 10 MiB decoded, or the configured limit when lower", async () => {
    const ctx = limited(3);
    // The setting is clamped to 1 KiB .. 100 MiB.
    const text = (n: number) => "a".repeat(n);
    const json = (text: string) =>
      new Request(`${ORIGIN}${MEDIA}/upload`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ content_base64: btoa(text) }),
      });
    expect((await readUploadRequest(ctx, json(text(1024)))).file.size).toBe(1024);
    await expect(readUploadRequest(ctx, json(text(1025)))).rejects.toMatchObject({
      status: 413,
      details: { max_bytes: 1024 },
    });
  });
});

describe("content type: the bytes decide when the declared type disagrees", () => {
  const cases: [string, Uint8Array, string, string][] = [
    ["a PNG declared as text", PNG_BYTES, "text/plain", "image/png"],
    ["a PNG declared as a PNG", PNG_BYTES, "image/png", "image/png"],
    ["a PNG declared as nothing", PNG_BYTES, "", "image/png"],
    ["a PDF declared as octet-stream", PDF_BYTES, "application/octet-stream", "application/pdf"],
    [
      "HTML declared as a PNG",
      bytesOf("<!DOCTYPE html><html><script>alert(1)</script></html>"),
      "image/png",
      "text/html",
    ],
    [
      "HTML with a BOM and spaces declared as text",
      bytesOf("\uFEFF  <html><body>x</body></html>"),
      "text/plain",
      "text/html",
    ],
    [
      "SVG declared as a PNG",
      bytesOf('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      "image/png",
      "image/svg+xml",
    ],
    [
      "SVG after an XML declaration, declared as a JPEG",
      bytesOf('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>'),
      "image/jpeg",
      "image/svg+xml",
    ],
    ["XML declared as nothing", bytesOf('<?xml version="1.0"?><note>hi</note>'), "", "application/xml"],
    ["text declared as a JPEG it is not", bytesOf("just words"), "image/jpeg", "text/plain"],
    ["CSV declared as CSV (text has no signature)", bytesOf("a,b\n1,2\n"), "text/csv", "text/csv"],
    ["a script declared as a script", bytesOf("alert(1)"), "application/javascript", "application/javascript"],
    [
      "unknown binary declared as nothing",
      Uint8Array.from([0, 1, 2, 3, 255, 254, 0, 7]),
      "",
      "application/octet-stream",
    ],
    ["a declared type with parameters and capitals", bytesOf("a,b"), "Text/CSV; charset=UTF-8", "text/csv"],
  ];

  it.each(cases)("%s", async (_what, bytes, declared, expected) => {
    const user = await createUser();
    const media = await createMedia(user, { bytes, type: declared, name: "upload" });
    expect(media.content_type).toBe(expected);
    expect((await env.MEDIA.head(media.path))?.httpMetadata?.contentType).toBe(expected);
    const served = await fetchUrl(media.signedUrl);
    expect(served.headers.get("Content-Type")).toBe(expected);
  });
});

describe("record and object together: no orphan after any failure", () => {
  /** A trigger that fails one statement on media for one filename, for the duration of `run`. */
  async function withFailingTrigger(
    when: "INSERT" | "UPDATE OF state" | "DELETE",
    filename: string,
    run: () => Promise<void>,
  ) {
    const name = `media_fail_${crypto.randomUUID().replace(/-/g, "")}`;
    const row = when === "DELETE" ? "OLD" : "NEW";
    await env.DB.prepare(
      `CREATE TRIGGER ${name} BEFORE ${when} ON media WHEN ${row}.filename = '${filename}' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
    ).run();
    try {
      await run();
    } finally {
      await env.DB.prepare(`DROP TRIGGER ${name}`).run();
    }
  }

  const contextFor = (user: TestUser, media: R2Bucket) =>
    actingAs(createContext({ env: { ...env, MEDIA: media } }), {
      userId: user.id,
      via: "api_key",
      apiKeyId: null,
      scopes: ALL_SCOPES,
    });

  /** The MEDIA bucket with one method failing. */
  const failing = (method: "put" | "delete"): R2Bucket =>
    new Proxy(env.MEDIA, {
      get(target, property) {
        if (property === method) return async () => Promise.reject(new Error(`R2 ${method} failed (injected)`));
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });

  it("the D1 insert fails: 500, and no object was written", async () => {
    const user = await createUser();
    const filename = `insert-fails-${crypto.randomUUID()}.png`;
    await withFailingTrigger("INSERT", filename, async () => {
      const res = await uploadMedia(user, { bytes: PNG_BYTES, filename, type: "image/png" });
      expectErrorBody(res, 500);
      expect(res.body).toMatchObject({ code: "internal" });
    });
    await expectNothingStored(user);
  });

  it("the R2 put fails: the hidden record is removed, nothing remains", async () => {
    const user = await createUser();
    const { uploadMedia: upload } = await import("../../../src/services/media/storage");
    const ctx = contextFor(user, failing("put"));
    await expect(upload(ctx, { file: new Blob([PNG_BYTES]), filename: "a.png", metadata: {} }, ORIGIN)).rejects.toThrow(
      /R2 put failed/,
    );
    await expectNothingStored(user);
  });

  it("making the record ready fails after the object was written: the object and the record are removed", async () => {
    const user = await createUser();
    const filename = `finalize-fails-${crypto.randomUUID()}.png`;
    await withFailingTrigger("UPDATE OF state", filename, async () => {
      const res = await uploadMedia(user, { bytes: PNG_BYTES, filename, type: "image/png" });
      expectErrorBody(res, 500);
    });
    await expectNothingStored(user);
  });

  it("the R2 delete fails: 500, and the file is still there, listed and served", async () => {
    const user = await createUser();
    const media = await createMedia(user, { bytes: PNG_BYTES, type: "image/png" });
    const { deleteMedia: remove } = await import("../../../src/services/media/storage");
    await expect(remove(contextFor(user, failing("delete")), media.id)).rejects.toThrow(/R2 delete failed/);
    expect(await storedMedia(media.id)).toMatchObject({ state: "ready" });
    expect(await objectBytes(media.path)).toEqual(PNG_BYTES);
    expect((await fetchUrl(media.signedUrl)).bytes).toEqual(PNG_BYTES);
  });

  it("the record delete fails after the object went: the record stays hidden, and the next DELETE finishes", async () => {
    const user = await createUser();
    const filename = `delete-fails-${crypto.randomUUID()}.png`;
    const media = await createMedia(user, { bytes: PNG_BYTES, filename, type: "image/png" });
    await withFailingTrigger("DELETE", filename, async () => {
      expectErrorBody(await api(`${MEDIA}/${media.id}`, { method: "DELETE", auth: user }), 500);
    });
    expect(await objectsOf(user.id)).toEqual([]);
    expect(await storedMedia(media.id)).toMatchObject({ state: "deleting" });
    // Hidden: the API shows no file without its object.
    expectErrorBody(await api(`${MEDIA}/${media.id}/metadata`, { auth: user }), 404);
    expect((await api<unknown[]>(MEDIA, { auth: user })).body).toEqual([]);
    const again = await api(`${MEDIA}/${media.id}`, { method: "DELETE", auth: user });
    expect(again.status).toBe(200);
    await expectNothingStored(user);
  });

  it("the sweep removes leftovers older than 15 minutes with their objects, and leaves recent ones", async () => {
    const user = await createUser();
    const { sweepMediaLeftovers } = await import("../../../src/services/media/storage");
    const old = new Date(Date.now() - 60 * 60 * 1000).toISOString();
    const rows = [
      { id: crypto.randomUUID(), state: "uploading", updated: old, object: true },
      { id: crypto.randomUUID(), state: "deleting", updated: old, object: false },
      { id: crypto.randomUUID(), state: "uploading", updated: new Date().toISOString(), object: true },
    ];
    for (const row of rows) {
      const path = `${user.id}/${row.id}-x.bin`;
      await env.DB.prepare(
        `INSERT INTO media (id, bucket, path, filename, content_type, size, sha256, state, created_by, created_at, updated_at)
         VALUES (?, 'media', ?, 'x.bin', 'application/octet-stream', 1, '00', ?, ?, ?, ?)`,
      )
        .bind(row.id, path, row.state, user.id, row.updated, row.updated)
        .run();
      if (row.object) await env.MEDIA.put(path, "x");
    }
    const removed = await sweepMediaLeftovers(contextFor(user, env.MEDIA), 1000);
    expect(removed).toBeGreaterThanOrEqual(2);
    expect((await storedMediaOf(user.id)).map((row) => row.id)).toEqual([rows[2]?.id]);
    expect(await objectsOf(user.id)).toEqual([`${user.id}/${rows[2]?.id}-x.bin`]);
  });

  it("the every-minute Cron Trigger runs the sweep", async () => {
    const user = await createUser();
    const id = crypto.randomUUID();
    const path = `${user.id}/${id}-x.bin`;
    const old = new Date(Date.now() - 60 * 60 * 1000).toISOString();
    await env.DB.prepare(
      `INSERT INTO media (id, bucket, path, filename, content_type, size, sha256, state, created_by, created_at, updated_at)
       VALUES (?, 'media', ?, 'x.bin', 'application/octet-stream', 1, '00', 'uploading', ?, ?, ?)`,
    )
      .bind(id, path, user.id, old, old)
      .run();
    await env.MEDIA.put(path, "x");
    const controller = createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" });
    const execution = createExecutionContext();
    await worker.scheduled?.(controller, env, execution);
    await waitOnExecutionContext(execution);
    expect(await storedMediaOf(user.id)).toEqual([]);
    expect(await objectsOf(user.id)).toEqual([]);
  });
});
