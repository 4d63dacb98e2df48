import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ALL_SCOPES } from "../../../src/auth/scopes";
import { actingAs, createContext } from "../../../src/lib/context";
import { mediaSigningSecret } from "../../../src/services/media/config";
import { servedInline } from "../../../src/services/media/content-types";
import { openSignedMedia, resolveMedia as resolveService } from "../../../src/services/media/links";
import { type SignedTarget, signedUrl, signTarget, verifyTarget } from "../../../src/services/media/signing";
import { api, createUser, type TestUser } from "../../helpers/api";
import { expectErrorBody } from "../../helpers/auth-matrix";
import {
  bytesOf,
  createMedia,
  deleteMedia,
  downloadByBody,
  downloadByUrl,
  fetchUrl,
  MEDIA,
  type MediaSignedUrl,
  ORIGIN,
  PNG_BYTES,
  resolveMedia,
  signedUrlOf,
  signedUrlOfPath,
  storageUrl,
  type UploadedMedia,
  uploadMedia,
} from "../../helpers/media";

/** The key links are signed with in tests (the development-only default: no secret is configured). */
const secret = mediaSigningSecret({ env, local: () => false });
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Bytes a random file holds, so two files never share content by chance. */
const randomBytes = (length = 300) => crypto.getRandomValues(new Uint8Array(length));

async function expectBytes(url: string, bytes: Uint8Array, what: string) {
  const res = await fetchUrl(url);
  expect(res.status, what).toBe(200);
  expect(res.bytes, what).toEqual(bytes);
}

describe("the same bytes back through every URL form", () => {
  it("upload's signedUrl, /{id}/url, /url?path=, resolve (every form), download (every form)", async () => {
    const user = await createUser();
    const bytes = randomBytes();
    const media = await createMedia(user, { bytes, name: "data.bin", type: "application/octet-stream" });
    const path = media.path;

    await expectBytes(media.signedUrl, bytes, "upload's signedUrl");
    const byId = await signedUrlOf(user, media.id);
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({ signed: true, id: media.id, bucket: "media", path, url: byId.body.signedUrl });
    await expectBytes(byId.body.signedUrl, bytes, "/{id}/url");
    const byPath = await signedUrlOfPath(user, path);
    expect(byPath.body).toMatchObject({ signed: true, id: media.id, path });
    await expectBytes(byPath.body.signedUrl, bytes, "/url?path=");

    const expired = await signedUrl(secret, ORIGIN, { bucket: "media", path, expires: nowSeconds() - 60 });
    const urls: [string, unknown][] = [
      ["resolve {bucket, path}", { bucket: "media", path }],
      ["resolve a signed link", { url: media.signedUrl }],
      ["resolve an expired signed link", { url: expired }],
      ["resolve a relative storage URL", { url: `/storage/v1/object/public/media/${path}` }],
      ...["public", "sign", "authenticated"].map((mode): [string, unknown] => [
        `resolve /storage/v1/object/${mode}/...`,
        { url: `${storageUrl(path, mode)}${mode === "sign" ? "?token=old" : ""}` },
      ]),
    ];
    for (const [what, body] of urls) {
      const resolved = await resolveMedia(user, body);
      expect(resolved.status, what).toBe(200);
      expect(resolved.body, what).toMatchObject({ signed: true, id: media.id, path });
      await expectBytes((resolved.body as MediaSignedUrl).signedUrl, bytes, what);
    }

    const downloads = [
      ["GET ?url=signed link", await downloadByUrl(user, media.signedUrl)],
      ["GET ?url=expired signed link", await downloadByUrl(user, expired)],
      ["GET ?url=storage URL", await downloadByUrl(user, storageUrl(path, "authenticated"))],
      ["POST {url}", await downloadByBody(user, { url: storageUrl(path) })],
      ["POST {bucket, path}", await downloadByBody(user, { bucket: "media", path })],
    ] as const;
    for (const [what, res] of downloads) {
      expect(res.status, what).toBe(200);
      expect(res.body, what).toEqual(bytes);
      expect(res.headers.get("Content-Disposition"), what).toBe(
        `attachment; filename="data.bin"; filename*=UTF-8''data.bin`,
      );
      expect(res.headers.get("Content-Security-Policy"), what).toBe("sandbox");
      expect(res.headers.get("X-Content-Type-Options"), what).toBe("nosniff");
      expect(res.headers.get("Cache-Control"), what).toBe("private, no-store");
    }
  });

  it("a storage URL on the configured storage origin (MEDIA_STORAGE_ORIGIN) is this service's too", async () => {
    const user = await createUser();
    const media = await createMedia(user, { bytes: PNG_BYTES, type: "image/png" });
    const ctx = actingAs(createContext({ env: { ...env, MEDIA_STORAGE_ORIGIN: "https://abc.supabase.co" } }), {
      userId: user.id,
      via: "api_key",
      apiKeyId: null,
      scopes: ALL_SCOPES,
    });
    const resolved = await resolveService(
      ctx,
      { url: storageUrl(media.path, "public", "media", "https://abc.supabase.co") },
      ORIGIN,
    );
    expect(resolved).toMatchObject({ signed: true, id: media.id });
    await expectBytes(resolved.signedUrl as string, PNG_BYTES, "configured origin");
    // Without the setting, that URL is someone else's.
    const unset = await resolveMedia(user, {
      url: storageUrl(media.path, "public", "media", "https://abc.supabase.co"),
    });
    expect(unset.body).toMatchObject({ signed: false });
  });

  it("resolve returns any other URL unchanged with signed: false", async () => {
    const user = await createUser();
    for (const url of [
      "https://images.example.org/cat.png",
      "http://169.254.169.254/latest/meta-data/",
      "data:image/png;base64,iVBORw0KGgo=",
      `${ORIGIN}/api/v1/blocks`,
      "not a url at all",
    ]) {
      const res = await resolveMedia(user, { url });
      expect(res.status, url).toBe(200);
      expect(res.body, url).toEqual({ signed: false, signedUrl: null, url, expires_at: null });
    }
  });
});

describe("signed URLs: expiry and tampering", () => {
  async function mediaWithLink(user?: TestUser): Promise<{ media: UploadedMedia; url: URL }> {
    const owner = user ?? (await createUser());
    const media = await createMedia(owner, { bytes: randomBytes(), name: "secret.bin" });
    return { media, url: new URL(media.signedUrl) };
  }

  /** 403 with the envelope: never the bytes. */
  async function expectRefused(url: string, reason: "invalid_signature" | "expired", what: string) {
    const res = await fetchUrl(url);
    expect(res.status, what).toBe(403);
    expect(res.headers.get("Content-Type"), what).toContain("application/json");
    expect(res.json, what).toEqual({
      error: expect.any(String),
      code: "forbidden",
      details: { reason },
      request_id: expect.any(String),
    });
  }

  it("an expired link is a 403 (the second of expiry included), also for a HEAD", async () => {
    const { media } = await mediaWithLink();
    for (const expires of [nowSeconds() - 1, nowSeconds() - 86_400, nowSeconds()]) {
      await expectRefused(
        await signedUrl(secret, ORIGIN, { bucket: "media", path: media.path, expires }),
        "expired",
        `${expires}`,
      );
    }
    const head = await fetchUrl(await signedUrl(secret, ORIGIN, { bucket: "media", path: media.path, expires: 1 }), {
      method: "HEAD",
    });
    expect(head.status).toBe(403);
    expect(head.bytes.length).toBe(0);
  });

  it("changing the path, the bucket, the expiry or the signature is a 403", async () => {
    const user = await createUser();
    const { media, url } = await mediaWithLink(user);
    const other = await createMedia(user, { bytes: randomBytes(), name: "other.bin" });
    const tampered = (change: (params: URLSearchParams) => void) => {
      const copy = new URL(url);
      change(copy.searchParams);
      return copy.toString();
    };
    const signature = url.searchParams.get("signature") ?? "";
    const swap = (char: string | undefined, other: string) => (char === other ? "B" : other);
    const flipped = `${signature.slice(0, 10)}${swap(signature[10], "A")}${signature.slice(11)}`;
    // The last character carries 4 bits and 2 unused ones: another spelling of the same bytes is refused too.
    const last = signature.at(-1) ?? "A";
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const respelled = `${signature.slice(0, -1)}${alphabet[alphabet.indexOf(last) ^ 1]}`;
    const cases: [string, string][] = [
      ["another file's path", tampered((p) => p.set("path", other.path))],
      ["the path with a suffix", tampered((p) => p.set("path", `${media.path}x`))],
      ["another bucket", tampered((p) => p.set("bucket", "media2"))],
      ["a later expiry", tampered((p) => p.set("expires", String(Number(p.get("expires")) + 1)))],
      ["a far expiry", tampered((p) => p.set("expires", "99999999999"))],
      ["an expiry that is not a number", tampered((p) => p.set("expires", "1e12"))],
      // One link has one spelling: the same instant with a leading zero is another link, never signed.
      ["the expiry with a leading zero", tampered((p) => p.set("expires", `0${p.get("expires")}`))],
      ["one character of the signature", tampered((p) => p.set("signature", flipped))],
      ["the signature's unused bits", tampered((p) => p.set("signature", respelled))],
      ["an empty signature", tampered((p) => p.set("signature", ""))],
      ["a signature of another shape", tampered((p) => p.set("signature", `${signature}=`))],
      [
        "a signature made with another secret",
        await signedUrl("another-secret-of-at-least-32-characters", ORIGIN, {
          bucket: "media",
          path: media.path,
          expires: Number(url.searchParams.get("expires")),
        }),
      ],
    ];
    for (const [what, tamperedUrl] of cases) await expectRefused(tamperedUrl, "invalid_signature", what);
    // The untouched link still works.
    expect((await fetchUrl(url.toString())).status).toBe(200);
  });

  it("a link without its parameters is a 400; extra parameters are ignored", async () => {
    const { url } = await mediaWithLink();
    const missing = new URL(url);
    missing.searchParams.delete("signature");
    const res = await fetchUrl(missing.toString());
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: "validation_failed" });
    const extra = new URL(url);
    extra.searchParams.set("utm_source", "mail");
    expect((await fetchUrl(extra.toString())).status).toBe(200);
  });

  it("a valid link to a deleted file is a 404", async () => {
    const user = await createUser();
    const { media, url } = await mediaWithLink(user);
    expect((await deleteMedia(user, media.id)).status).toBe(200);
    const res = await fetchUrl(url.toString());
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ code: "not_found" });
  });

  it("costs no D1 round trip", async () => {
    const { url } = await mediaWithLink();
    const res = await fetchUrl(url.toString());
    expect(res.headers.get("Server-Timing")).toContain('d1;desc="0 round trips"');
  });

  it("signs bucket, path and expiry unambiguously (no field can run into another)", async () => {
    // Pairs whose fields joined with a separator (a line break, `/`, nothing) give the same text.
    const pairs: [SignedTarget, SignedTarget][] = [
      [
        { bucket: "media", path: "u/a\nb", expires: 5 },
        { bucket: "media\nu/a", path: "b", expires: 5 },
      ],
      [
        { bucket: "media", path: "u/a/b", expires: 5 },
        { bucket: "media/u", path: "a/b", expires: 5 },
      ],
      [
        { bucket: "media", path: "u/a\n5", expires: 15 },
        { bucket: "media", path: "u/a", expires: 515 },
      ],
      [
        { bucket: "media", path: 'u/a","b', expires: 5 },
        { bucket: 'media","u/a', path: "b", expires: 5 },
      ],
    ];
    for (const [a, b] of pairs) {
      const what = JSON.stringify([a, b]);
      const signatureA = await signTarget(secret, a);
      const signatureB = await signTarget(secret, b);
      expect(signatureA, what).not.toBe(signatureB);
      expect(await verifyTarget(secret, a, signatureA), what).toBe(true);
      expect(await verifyTarget(secret, b, signatureA), what).toBe(false);
      expect(await verifyTarget(secret, a, signatureB), what).toBe(false);
    }
  });
});

describe("answers carrying a link", () => {
  it("are never kept by a cache (Cache-Control: no-store): upload, /{id}/url, /url and /resolve", async () => {
    const user = await createUser();
    const uploaded = await uploadMedia(user, { filename: "cached.txt", bytes: bytesOf("a link is a credential") });
    expect(uploaded.status).toBe(201);
    const { id, path } = uploaded.body;
    const answers = {
      upload: uploaded,
      "/{id}/url": await signedUrlOf(user, id),
      "/url": await signedUrlOfPath(user, path),
      "/resolve": await resolveMedia(user, { bucket: "media", path }),
    };
    for (const [what, res] of Object.entries(answers)) {
      expect(res.status, what).toBeLessThan(300);
      expect(res.headers.get("Cache-Control"), what).toBe("no-store");
    }
    // A refusal carries no link: it is left to the usual rules.
    expect((await signedUrlOf(user, id, "expiresIn=1")).headers.get("Cache-Control")).toBeNull();
  });
});

describe("expiresIn", () => {
  it("is honoured from 60 s to 7 days, 1 hour by default; outside the bounds a 400", async () => {
    const user = await createUser();
    const media = await createMedia(user);
    const expiresIn = async (query: string) => {
      const res = await signedUrlOf(user, media.id, query);
      return { res, seconds: (Date.parse(res.body.expires_at) - Date.now()) / 1000 };
    };
    for (const [query, seconds] of [
      ["", 3600],
      ["expiresIn=60", 60],
      ["expiresIn=604800", 604800],
    ] as const) {
      const { res, seconds: actual } = await expiresIn(query);
      expect(res.status, query).toBe(200);
      expect(actual, query).toBeGreaterThan(seconds - 5);
      expect(actual, query).toBeLessThanOrEqual(seconds);
      expect(new URL(res.body.signedUrl).searchParams.get("expires")).toBe(
        String(Date.parse(res.body.expires_at) / 1000),
      );
    }
    for (const bad of [
      "expiresIn=59",
      "expiresIn=604801",
      "expiresIn=1.5",
      "expiresIn=soon",
      "expiresIn=0x3c",
      "expiresIn=6e1",
    ]) {
      expectErrorBody(await signedUrlOf(user, media.id, bad), 400);
    }
    const resolved = await resolveMedia(user, { bucket: "media", path: media.path, expiresIn: 120 });
    expect(Date.parse((resolved.body as MediaSignedUrl).expires_at) - Date.now()).toBeLessThanOrEqual(120_000);
    expectErrorBody(await resolveMedia(user, { bucket: "media", path: media.path, expiresIn: 10 }), 400);
  });
});

describe("how bytes are served", () => {
  const serve = async (user: TestUser, bytes: Uint8Array, type: string, name: string) => {
    const media = await createMedia(user, { bytes, type, name });
    return { media, res: await fetchUrl(media.signedUrl) };
  };

  it("images, audio, video and plain text inline; HTML, SVG, XML, scripts, PDF and unknown bytes as attachments", async () => {
    const user = await createUser();
    const cases: [Uint8Array, string, string, "inline" | "attachment"][] = [
      [PNG_BYTES, "image/png", "pixel.png", "inline"],
      [bytesOf("plain words"), "text/plain", "notes.txt", "inline"],
      [bytesOf("<html><script>alert(document.cookie)</script></html>"), "text/html", "page.html", "attachment"],
      [bytesOf('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'), "image/svg+xml", "x.svg", "attachment"],
      [bytesOf('<?xml version="1.0"?><a/>'), "application/xml", "a.xml", "attachment"],
      [bytesOf("alert(1)"), "text/javascript", "x.js", "attachment"],
      [bytesOf("%PDF-1.7\n%%EOF"), "application/pdf", "doc.pdf", "attachment"],
      [Uint8Array.from([0, 1, 2, 250]), "", "blob", "attachment"],
    ];
    for (const [bytes, type, name, kind] of cases) {
      const { media, res } = await serve(user, bytes, type, name);
      expect(res.status, name).toBe(200);
      expect(res.bytes, name).toEqual(bytes);
      expect(res.headers.get("Content-Type"), name).toBe(media.content_type);
      expect(res.headers.get("Content-Disposition"), name).toBe(
        `${kind}; filename="${name}"; filename*=UTF-8''${name}`,
      );
      expect(res.headers.get("X-Content-Type-Options"), name).toBe("nosniff");
      expect(res.headers.get("Content-Security-Policy"), name).toBe("sandbox");
      expect(res.headers.get("Content-Length"), name).toBe(String(bytes.length));
      expect(res.headers.get("Cache-Control"), name).toMatch(/^private, max-age=\d+$/);
    }
  });

  it("inline only for an explicit list of image, audio and video types, never markup or scripts", async () => {
    const inline = [
      "image/png",
      "image/jpeg",
      "image/webp",
      "audio/mpeg",
      "audio/ogg",
      "audio/wav",
      "audio/webm",
      "audio/flac",
      "audio/mp4",
      "video/mp4",
      "video/webm",
      "video/ogg",
      "video/quicktime",
      "text/plain",
    ];
    const attachment = [
      "video/x+xml",
      "audio/x-foo+xml",
      "video/html",
      "audio/svg",
      "video/svg+xml",
      "audio/x-script",
      "video/javascript",
      "video/xhtml",
      "audio/x-unknown",
      "video/x-anything",
      "image/svg+xml",
      "text/html",
      "application/xhtml+xml",
    ];
    for (const type of inline) expect(servedInline(type), type).toBe(true);
    for (const type of attachment) expect(servedInline(type), type).toBe(false);
  });

  it("markup declared as an audio or video type goes out as an attachment", async () => {
    const user = await createUser();
    // XHTML under a prefix: none of the first tags the markup check knows, no magic number.
    const xhtml = bytesOf(
      '<x:html xmlns:x="http://www.w3.org/1999/xhtml"><x:body><x:script>alert(document.cookie)</x:script></x:body></x:html>',
    );
    for (const type of ["video/x+xml", "audio/x-foo+xml", "video/html"]) {
      const { media, res } = await serve(user, xhtml, type, "clip");
      expect(media.content_type, type).toBe(type);
      expect(res.status, type).toBe(200);
      expect(res.headers.get("Content-Disposition"), type).toBe(`attachment; filename="clip"; filename*=UTF-8''clip`);
      expect((await env.MEDIA.head(media.path))?.httpMetadata?.contentDisposition, type).toMatch(/^attachment;/);
    }
    // An object stored before, inline with such a type, is served as an attachment too.
    const path = `${crypto.randomUUID()}/planted-clip`;
    await env.MEDIA.put(path, xhtml, { httpMetadata: { contentType: "video/x+xml", contentDisposition: "inline" } });
    const res = await fetchUrl(await signedUrl(secret, ORIGIN, { bucket: "media", path, expires: nowSeconds() + 60 }));
    expect(res.headers.get("Content-Disposition")).toBe("attachment");
  });

  it("an object stored inline with a type a browser could run still goes out as an attachment", async () => {
    const path = `${crypto.randomUUID()}/planted.html`;
    await env.MEDIA.put(path, "<script>alert(1)</script>", {
      httpMetadata: { contentType: "text/html", contentDisposition: "inline" },
    });
    const res = await fetchUrl(await signedUrl(secret, ORIGIN, { bucket: "media", path, expires: nowSeconds() + 60 }));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Disposition")).toBe("attachment");
  });

  it("a filename outside ASCII goes in filename* (RFC 5987), with an ASCII fallback", async () => {
    const user = await createUser();
    // In the `filename` field: a multipart part's own name carries a quote as %22.
    const media = await createMedia(user, { bytes: PNG_BYTES, type: "image/png", filename: 'Café "menu" ☕.png' });
    const res = await fetchUrl(media.signedUrl);
    expect(res.headers.get("Content-Disposition")).toBe(
      `inline; filename="Caf_ _menu_ _.png"; filename*=UTF-8''Caf%C3%A9%20%22menu%22%20%E2%98%95.png`,
    );
  });
});

describe("MEDIA_SIGNING_SECRET", () => {
  const contextWith = (ENVIRONMENT: string, MEDIA_SIGNING_SECRET: string | undefined, local: boolean) =>
    createContext({ env: { ...env, ENVIRONMENT, MEDIA_SIGNING_SECRET } as Env, local: () => local });

  it("local work may use the development-only default; anywhere else it is a 503 naming the secret", async () => {
    expect(mediaSigningSecret(contextWith("test", undefined, false))).toBe(secret);
    expect(mediaSigningSecret(contextWith("development", undefined, true))).toBe(secret);
    for (const [environment, configured, local] of [
      ["production", undefined, false],
      ["production", "", false],
      ["production", "too-short", false],
      ["production", secret, false],
      // A top-level configuration deployed by mistake is never reached on a loopback address.
      ["development", undefined, false],
    ] as const) {
      const ctx = contextWith(environment, configured, local);
      expect(() => mediaSigningSecret(ctx), `${environment} ${configured}`).toThrow(
        expect.objectContaining({ status: 503, details: { setting: "MEDIA_SIGNING_SECRET" } }),
      );
      await expect(
        openSignedMedia(ctx, { bucket: "media", path: "a/b", expires: String(nowSeconds() + 60), signature: "x" }),
      ).rejects.toMatchObject({ status: 503 });
    }
    const configured = "a-real-secret-of-more-than-thirty-two-characters";
    expect(mediaSigningSecret(contextWith("production", configured, false))).toBe(configured);
  });

  it("a link signed with the development default is refused where a real secret is set", async () => {
    const user = await createUser();
    const media = await createMedia(user);
    const link = new URL(media.signedUrl);
    const ctx = contextWith("production", "a-real-secret-of-more-than-thirty-two-characters", false);
    await expect(
      openSignedMedia(ctx, {
        bucket: "media",
        path: media.path,
        expires: link.searchParams.get("expires") ?? "",
        signature: link.searchParams.get("signature") ?? "",
      }),
    ).rejects.toMatchObject({ status: 403 });
  });
});

describe("scopes", () => {
  it("a read-only key may sign, resolve and download, but not upload, patch or delete", async () => {
    const user = await createUser();
    const media = await createMedia(user);
    const { generateApiKey } = await import("../../../src/auth/api-key-format");
    const key = await generateApiKey();
    await env.DB.prepare(
      "INSERT INTO api_keys (id, user_id, name, key_hash, display_prefix, display_suffix, scopes) VALUES (?, ?, 'r', ?, ?, ?, 'read')",
    )
      .bind(crypto.randomUUID(), user.id, key.hash, key.displayPrefix, key.displaySuffix)
      .run();
    const reader = key.raw;
    expect((await api(`${MEDIA}/${media.id}/url`, { auth: reader })).status).toBe(200);
    expect(
      (await api(`${MEDIA}/resolve`, { method: "POST", auth: reader, body: { url: media.signedUrl } })).status,
    ).toBe(200);
    expect((await downloadByUrl(reader, media.signedUrl)).status).toBe(200);
    const refused = [
      await api(`${MEDIA}/upload`, { method: "POST", auth: reader, body: { content_base64: "aGk=" } }),
      await api(`${MEDIA}/${media.id}/metadata`, { method: "PATCH", auth: reader, body: { a: 1 } }),
      await api(`${MEDIA}/${media.id}`, { method: "DELETE", auth: reader }),
    ];
    for (const res of refused) {
      expectErrorBody(res, 403);
      expect(res.body).toMatchObject({ details: { required_scope: "write" } });
    }
  });
});
