import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
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
  type UploadedMedia,
  uploadForm,
  uploadMedia,
  uploadRaw,
} from "../../helpers/media";

describeAuthMatrix({ name: "POST /api/v1/media/upload", method: "POST", path: () => `${MEDIA}/upload`, body: {} });

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Base64 of any length (btoa takes a string; spreading megabytes of bytes into one call overflows the stack). */
function toBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let start = 0; start < bytes.length; start += 3 * 8192) {
    parts.push(btoa(String.fromCharCode(...bytes.subarray(start, start + 3 * 8192))));
  }
  return parts.join("");
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
    // The default lifetime: one hour, from when the link was signed (read from the clock after
    // `created_at`, so a loaded machine may put a few milliseconds between them).
    const lifetime = Date.parse(res.body.expires_at) - Date.parse(res.body.created_at);
    expect(lifetime).toBeGreaterThan(3590_000);
    expect(lifetime).toBeLessThanOrEqual(3600_000 + 60_000);

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

  it("a JSON upload of 9 MiB is read (its base64 checked in linear time) with its bytes intact", async () => {
    const user = await createUser();
    const bytes = new Uint8Array(9 * 1024 * 1024);
    for (let start = 0; start < bytes.length; start += 65536) {
      crypto.getRandomValues(bytes.subarray(start, start + 65536));
    }
    const res = await api<UploadedMedia>(`${MEDIA}/upload`, {
      method: "POST",
      auth: user,
      body: { content_base64: toBase64(bytes), filename: "big.bin" },
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
    expect(res.body.size).toBe(bytes.length);
    expect(res.body.sha256).toBe(await sha256Hex(bytes));
    const stored = await objectBytes(res.body.path);
    expect(stored?.length).toBe(bytes.length);
    expect(stored && (await sha256Hex(stored))).toBe(await sha256Hex(bytes));
  });

  it("400 for content_base64 that is not base64, however long; nothing stored", async () => {
    const user = await createUser();
    const long = "QUJD".repeat(1024 * 1024);
    const cases = [
      "%%%",
      "a",
      "aGk=aGk=",
      "aGk===",
      "====",
      "aG=k",
      "aGVsbG8=\n",
      "aGVs bG8=",
      "aGVsbG8-",
      "aGVsbG8_",
      "aGVsbA=",
      `${long}*`,
      `${long}=${long}`,
    ];
    for (const content_base64 of cases) {
      const res = await api(`${MEDIA}/upload`, { method: "POST", auth: user, body: { content_base64 } });
      expectErrorBody(res, 400);
      expect(res.body, content_base64.slice(0, 20)).toMatchObject({ code: "validation_failed" });
    }
    // Unpadded base64 is still read.
    const unpadded = await api<UploadedMedia>(`${MEDIA}/upload`, {
      method: "POST",
      auth: user,
      body: { content_base64: "aGk", filename: "hi.txt" },
    });
    expect(unpadded.status).toBe(201);
    expect(await objectBytes(unpadded.body.path)).toEqual(bytesOf("hi"));
    expect((await storedMediaOf(user.id)).length).toBe(1);
  });

  it("filenames lose C0 and C1 controls and bidirectional formatting characters", async () => {
    const user = await createUser();
    const cases: [string, string][] = [
      ["invoice\u202Efdp.exe", "invoicefdp.exe"],
      ["a\u0080b\u0085c\u009Fd.txt", "abcd.txt"],
      ["\u200Eleft\u200F-right.txt", "left-right.txt"],
      ["\u202Aa\u202Bb\u202Cc\u202Dd\u202Ee.txt", "abcde.txt"],
      ["\u2066x\u2067y\u2068z\u2069.txt", "xyz.txt"],
      ["\u061Cmark\u0007bell\u007F.txt", "markbell.txt"],
      ["Résumé \u00A0ok.txt", "Résumé \u00A0ok.txt"],
    ];
    for (const [given, stored] of cases) {
      const media = await createMedia(user, { filename: given });
      expect(media.filename, JSON.stringify(given)).toBe(stored);
    }
    const onlyFormatting = await uploadMedia(user, { filename: "\u202E\u2066\u0085" });
    expectErrorBody(onlyFormatting, 400);
    expect(onlyFormatting.body).toMatchObject({ details: { field: "filename" } });
  });

  it("a 400 for unknown fields names at most 20 of them, with their count", async () => {
    const user = await createUser();
    const fields = Object.fromEntries(
      Array.from({ length: 500 }, (_, i) => [`field_${String(i).padStart(3, "0")}_${"x".repeat(200)}`, "v"]),
    );
    const res = await uploadMedia(user, { fields });
    expectErrorBody(res, 400);
    const details = (res.body as unknown as { details: { fields: string[]; unknown_count: number } }).details;
    expect(details.unknown_count).toBe(500);
    expect(details.fields).toHaveLength(20);
    expect(details.fields[0]?.startsWith("field_000_")).toBe(true);
    expect(JSON.stringify(res.body).length).toBeLessThan(4096);
    const few = await uploadMedia(user, { fields: { folder: "x", tag: "y" } });
    expect(few.body).toMatchObject({ details: { fields: ["folder", "tag"], unknown_count: 2 } });
    await expectNothingStored(user);
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
      request_id: expect.any(String),
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

  it("the R2 delete fails: 500, the record stays hidden with its object, and a retry finishes", async () => {
    const user = await createUser();
    const media = await createMedia(user, { bytes: PNG_BYTES, type: "image/png" });
    const { deleteMedia: remove } = await import("../../../src/services/media/storage");
    await expect(remove(contextFor(user, failing("delete")), media.id)).rejects.toThrow(/R2 delete failed/);
    // Never `ready` again once a deletion is claimed: another DELETE may be removing the object meanwhile.
    expect(await storedMedia(media.id)).toMatchObject({ state: "deleting" });
    expect(await objectBytes(media.path)).toEqual(PNG_BYTES);
    expectErrorBody(await api(`${MEDIA}/${media.id}/metadata`, { auth: user }), 404);
    expect((await api(`${MEDIA}/${media.id}`, { method: "DELETE", auth: user })).status).toBe(200);
    await expectNothingStored(user);
  });

  it("two DELETEs at once, one failing at R2: never a ready record without its object, never a false 200", async () => {
    const user = await createUser();
    const media = await createMedia(user, { bytes: PNG_BYTES, type: "image/png" });
    const { deleteMedia: remove } = await import("../../../src/services/media/storage");
    const gate = () => {
      let open = () => {};
      const opened = new Promise<void>((resolve) => {
        open = resolve;
      });
      return { open, opened };
    };
    const aEntered = gate();
    const aRelease = gate();
    const bEntered = gate();
    const bRelease = gate();
    /** The MEDIA bucket whose delete waits at a gate, then does `then`. */
    const gated = (entered: () => void, release: Promise<void>, then: (key: string) => Promise<void>): R2Bucket =>
      new Proxy(env.MEDIA, {
        get(target, property) {
          if (property === "delete") {
            return async (key: string) => {
              entered();
              await release;
              return then(key);
            };
          }
          const value = Reflect.get(target, property);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    const bucketA = gated(aEntered.open, aRelease.opened, async () => {
      throw new Error("R2 delete failed (injected)");
    });
    const bucketB = gated(bEntered.open, bRelease.opened, (key) => env.MEDIA.delete(key));
    // A claims the deletion and reaches R2; B claims it too and reaches R2.
    const a = remove(contextFor(user, bucketA), media.id).then(
      () => "ok",
      (error: unknown) => error,
    );
    await aEntered.opened;
    const b = remove(contextFor(user, bucketB), media.id).then(
      () => "ok",
      (error: unknown) => error,
    );
    await bEntered.opened;
    // A's R2 delete fails and A finishes; then B's succeeds.
    aRelease.open();
    expect(await a).toBeInstanceOf(Error);
    bRelease.open();
    const bOutcome = await b;
    const row = await storedMedia(media.id);
    const object = await objectBytes(media.path);
    // No record shown without its object.
    if (row?.state === "ready") expect(object).not.toBeNull();
    // A success means the file is gone: record and object.
    if (bOutcome === "ok") {
      expect(row).toBeNull();
      expect(object).toBeNull();
    }
    expect(bOutcome).toBe("ok");
    await expectNothingStored(user);
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

  it("a leftover the sweep cannot remove is logged and skipped; the sweep goes on, and later runs move past it", async () => {
    const user = await createUser();
    const { sweepMediaLeftovers } = await import("../../../src/services/media/storage");
    // Older than anything else in the table, so a sweep of one takes these first.
    const rows = [
      { id: crypto.randomUUID(), state: "deleting", updated: "1990-01-01T00:00:00.000Z" },
      { id: crypto.randomUUID(), state: "uploading", updated: "1990-01-02T00:00:00.000Z" },
      { id: crypto.randomUUID(), state: "uploading", updated: "1990-01-03T00:00:00.000Z" },
    ];
    const pathOf = (id: string | undefined) => `${user.id}/${id}-x.bin`;
    for (const row of rows) {
      await env.DB.prepare(
        `INSERT INTO media (id, bucket, path, filename, content_type, size, sha256, state, created_by, created_at, updated_at)
         VALUES (?, 'media', ?, 'x.bin', 'application/octet-stream', 1, '00', ?, ?, ?, ?)`,
      )
        .bind(row.id, pathOf(row.id), row.state, user.id, row.updated, row.updated)
        .run();
      await env.MEDIA.put(pathOf(row.id), "x");
    }
    const stuck = pathOf(rows[0]?.id);
    const failingFor: R2Bucket = new Proxy(env.MEDIA, {
      get(target, property) {
        if (property === "delete") {
          return async (key: string) => {
            if (key === stuck) throw new Error("R2 delete failed (injected)");
            return target.delete(key);
          };
        }
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const ctx = contextFor(user, failingFor);
      // A sweep of one takes the stuck record, fails, logs it and pushes it back.
      expect(await sweepMediaLeftovers(ctx, 1)).toBe(0);
      const logged = errors.mock.calls.map((call) => String(call[0])).find((line) => line.includes(rows[0]?.id ?? "-"));
      expect(logged && JSON.parse(logged)).toMatchObject({
        level: "error",
        media_id: rows[0]?.id,
        path: stuck,
        error: expect.stringContaining("R2 delete failed"),
      });
      const pushedBack = await storedMedia(rows[0]?.id ?? "");
      expect(pushedBack?.state).toBe("deleting");
      expect(Date.parse(pushedBack?.updated_at ?? "")).toBeGreaterThan(Date.now() - 60_000);
      // The next sweep of one moves past it.
      expect(await sweepMediaLeftovers(ctx, 1)).toBe(1);
      expect(await storedMedia(rows[1]?.id ?? "")).toBeNull();
      // One failure does not stop a sweep: the others are removed in the same run.
      await env.DB.prepare("UPDATE media SET updated_at = '1990-01-01T00:00:00.000Z' WHERE id = ?")
        .bind(rows[0]?.id)
        .run();
      expect(await sweepMediaLeftovers(ctx, 2)).toBe(1);
    } finally {
      errors.mockRestore();
    }
    expect((await storedMediaOf(user.id)).map((row) => row.id)).toEqual([rows[0]?.id]);
    expect(await objectsOf(user.id)).toEqual([stuck]);
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
