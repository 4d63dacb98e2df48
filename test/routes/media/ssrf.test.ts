import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createUser, type TestUser } from "../../helpers/api";
import { expectErrorBody } from "../../helpers/auth-matrix";
import {
  createMedia,
  downloadByBody,
  downloadByUrl,
  ORIGIN,
  resolveMedia,
  signedUrlOfPath,
  storageUrl,
  type UploadedMedia,
} from "../../helpers/media";
import { type FakedThirdParties, fakeThirdParties } from "../../helpers/third-party";

// Downloads read this service's own storage only, through the R2 binding. Nothing here may
// ever reach the network: every outbound fetch of the Worker is counted, and must stay at zero.

let outbound: FakedThirdParties;
beforeEach(() => {
  outbound = fakeThirdParties(() => new Response("a third party must never be called", { status: 200 }));
});
afterEach(() => {
  expect(outbound.requests.map((request) => request.url)).toEqual([]);
  outbound.restore();
});

async function ownerWithFile(): Promise<{ user: TestUser; media: UploadedMedia }> {
  const user = await createUser();
  return { user, media: await createMedia(user, { name: "private.txt" }) };
}

/** Disguises of hosts that are not this service's storage, each with the path of the caller's own file. */
function disguises(path: string): [string, string, string][] {
  const tail = `/storage/v1/object/public/media/${path}`;
  return [
    ["an external host", `https://evil.example${tail}`, "external_host"],
    ["an external host, plain http", `http://example.com/file.png`, "external_host"],
    ["loopback by name", `http://localhost:8787${tail}`, "private_address"],
    ["loopback by address", `http://127.0.0.1${tail}`, "private_address"],
    ["loopback, short form", `http://127.1${tail}`, "private_address"],
    ["loopback in decimal", `http://2130706433${tail}`, "private_address"],
    ["loopback in hex", `http://0x7f000001${tail}`, "private_address"],
    ["loopback in octal", `http://0177.0.0.1${tail}`, "private_address"],
    ["IPv6 loopback", `http://[::1]${tail}`, "private_address"],
    ["IPv6-mapped IPv4 loopback", `http://[::ffff:127.0.0.1]${tail}`, "private_address"],
    ["IPv6-mapped, hex", `http://[::ffff:7f00:1]${tail}`, "private_address"],
    ["link-local (cloud metadata)", "http://169.254.169.254/latest/meta-data/", "private_address"],
    ["private 10/8", `http://10.0.0.7${tail}`, "private_address"],
    ["private 172.16/12", `http://172.16.5.4${tail}`, "private_address"],
    ["private 192.168/16", `http://192.168.1.1${tail}`, "private_address"],
    ["this network", `http://0.0.0.0${tail}`, "private_address"],
    ["IPv6 unique local", `http://[fd00::1]${tail}`, "private_address"],
    ["IPv6 link-local", `http://[fe80::1]${tail}`, "private_address"],
    ["a public IP", `http://93.184.216.34${tail}`, "ip_address"],
    ["credentials pointing elsewhere", `http://workspace.test@evil.example${tail}`, "credentials"],
    ["credentials before our own host", `http://evil.example@workspace.test${tail}`, "credentials"],
    ["our host with a trailing dot", `http://workspace.test.${tail}`, "external_host"],
    ["our host in other letters", `http://WORKSPACE.test${tail}`, "external_host"],
    ["our scheme in capitals", `HTTP://workspace.test${tail}`, "external_host"],
    ["our host with an escape", `http://workspace%2Etest${tail}`, "external_host"],
    ["our host with its default port written", `http://workspace.test:80${tail}`, "external_host"],
    ["our host over another scheme", `https://workspace.test${tail}`, "external_host"],
    ["a look-alike subdomain", `http://workspace.test.evil.example${tail}`, "external_host"],
    ["protocol-relative", `//evil.example${tail}`, "external_host"],
    ["backslashes", `http:\\\\evil.example\\storage`, "invalid_url"],
    ["a leading space", ` ${ORIGIN}${tail}`, "invalid_url"],
    ["a newline inside", `${ORIGIN}/sto\nrage/v1/object/public/media/${path}`, "invalid_url"],
    ["file:", "file:///etc/passwd", "scheme"],
    ["gopher:", "gopher://127.0.0.1:6379/_INFO", "scheme"],
    ["ftp:", "ftp://example.com/file.png", "scheme"],
    ["javascript:", "javascript:alert(1)", "scheme"],
    ["data:", "data:text/plain,hello", "scheme"],
    ["not a URL", "just words", "invalid_url"],
    [
      "our origin, not a media URL (an open redirect would be)",
      `${ORIGIN}/redirect?to=http://evil.example/`,
      "not_a_media_url",
    ],
    ["our origin, the API", `${ORIGIN}/api/v1/media`, "not_a_media_url"],
    ["our origin, an unknown storage mode", `${ORIGIN}/storage/v1/object/private/media/${path}`, "not_a_media_url"],
  ];
}

describe("download fetches nothing but this service's storage: every disguise is a 400", () => {
  it("GET /download?url= and POST {url}: 400 with the reason, and no request leaves the Worker", async () => {
    const { user, media } = await ownerWithFile();
    for (const [what, url, reason] of disguises(media.path)) {
      for (const res of [await downloadByUrl(user, url), await downloadByBody(user, { url })]) {
        expectErrorBody(res, 400);
        expect(res.headers.get("Content-Type"), what).toContain("application/json");
        expect(res.body, what).toMatchObject({ code: "validation_failed", details: { field: "url", reason } });
      }
    }
  });

  it("resolve never fetches either: those URLs come back unchanged, signed: false", async () => {
    const { user, media } = await ownerWithFile();
    for (const [what, url, reason] of disguises(media.path)) {
      if (reason === "invalid_url" && url.includes("\n")) continue; // not one URL: covered by download
      const res = await resolveMedia(user, { url });
      expect(res.status, what).toBe(200);
      expect(res.body, what).toEqual({ signed: false, signedUrl: null, url, expires_at: null });
    }
  });

  it("the caller's own file through the same URL written canonically is served (the control case)", async () => {
    const { user, media } = await ownerWithFile();
    const res = await downloadByUrl(user, storageUrl(media.path));
    expect(res.status).toBe(200);
    expect(new TextDecoder().decode(res.body)).toBe("hello media");
  });
});

describe("paths are checked as written, before any policy or lookup", () => {
  /** Traversal and disguised separators, in a path and inside this service's URLs. */
  function badPaths(user: TestUser, media: UploadedMedia, victim: string): [string, string, string][] {
    const name = media.path.slice(user.id.length + 1);
    return [
      ["a .. segment into another folder", `${user.id}/../${victim}/x.txt`, "dot_segment"],
      ["a .. segment back into the own folder", `${victim}/../${media.path}`, "dot_segment"],
      ["a leading ..", `../${media.path}`, "dot_segment"],
      ["a . segment", `${user.id}/./${name}`, "dot_segment"],
      ["an encoded dot-dot", `${user.id}/%2e%2e/${victim}/x`, "encoded_character"],
      ["an encoded slash", `${user.id}%2F${name}`, "encoded_character"],
      ["an encoded backslash", `${user.id}%5C${name}`, "encoded_character"],
      ["a double-encoded slash", `${user.id}%252F${name}`, "encoded_character"],
      ["an encoded NUL", `${media.path}%00.png`, "encoded_character"],
      ["a backslash", `${user.id}\\${name}`, "backslash"],
      ["an empty segment", `${user.id}//${name}`, "empty_segment"],
      ["a leading slash", `/${media.path}`, "empty_segment"],
      ["a trailing slash", `${media.path}/`, "empty_segment"],
      ["no folder", name, "no_folder"],
      ["a control character", `${media.path}\u0001`, "control_character"],
    ];
  }

  it("/url?path=, resolve and download by {bucket, path}: a 400 naming the rule", async () => {
    const { user, media } = await ownerWithFile();
    const victim = (await createUser()).id;
    for (const [what, path, reason] of badPaths(user, media, victim)) {
      const responses = [
        await signedUrlOfPath(user, path),
        await resolveMedia(user, { bucket: "media", path }),
        await downloadByBody(user, { bucket: "media", path }),
      ];
      for (const res of responses) {
        expectErrorBody(res, 400);
        expect(res.body, what).toMatchObject({ details: { reason } });
      }
    }
  });

  it("inside this service's URLs (storage and signed-link forms): a 400, never another file", async () => {
    const { user, media } = await ownerWithFile();
    const victim = (await createUser()).id;
    for (const [what, path, reason] of badPaths(user, media, victim)) {
      if (reason === "backslash" || reason === "control_character") continue; // not a URL: covered above
      if (reason === "empty_segment" && path.startsWith("/")) continue; // `media//...`: the same rule
      const storage = storageUrl(path);
      const signedForm = `${ORIGIN}/media/signed?bucket=media&path=${encodeURIComponent(path)}&expires=1&signature=x`;
      for (const url of [storage, signedForm]) {
        const responses = [await downloadByUrl(user, url), await resolveMedia(user, { url })];
        for (const res of responses) {
          expectErrorBody(res, 400);
          expect(res.body, `${what}: ${url}`).toMatchObject({ details: { field: "url", reason } });
        }
      }
    }
  });

  it("a well-formed path in another user's folder is a 404, checked before any lookup and never retried", async () => {
    const { media: victimsFile } = await ownerWithFile();
    const { user } = await ownerWithFile();
    const responses = [
      await signedUrlOfPath(user, victimsFile.path),
      await resolveMedia(user, { bucket: "media", path: victimsFile.path }),
      await resolveMedia(user, { url: storageUrl(victimsFile.path) }),
      await resolveMedia(user, { url: victimsFile.signedUrl }),
      await downloadByBody(user, { bucket: "media", path: victimsFile.path }),
      await downloadByUrl(user, storageUrl(victimsFile.path, "authenticated")),
      await downloadByUrl(user, victimsFile.signedUrl),
    ];
    for (const res of responses) {
      expectErrorBody(res, 404);
      expect(res.body).toMatchObject({ code: "not_found" });
      // Only authentication's own round trip (the key's lookup, or its liveness check): no media lookup.
      expect(res.roundTrips).toBeLessThanOrEqual(1);
    }
  });

  it("another bucket, or a path in the own folder that holds nothing, is a 404", async () => {
    const { user, media } = await ownerWithFile();
    for (const res of [
      await resolveMedia(user, { bucket: "avatars", path: media.path }),
      await resolveMedia(user, { url: storageUrl(media.path, "public", "avatars") }),
      await downloadByBody(user, { bucket: "avatars", path: media.path }),
      await signedUrlOfPath(user, `${user.id}/nothing-here.txt`),
      await downloadByBody(user, { bucket: "media", path: `${user.id}/nothing-here.txt` }),
    ]) {
      expectErrorBody(res, 404);
    }
  });

  it("a malformed bucket name in a URL is a 400", async () => {
    const { user, media } = await ownerWithFile();
    const res = await downloadByUrl(user, `${ORIGIN}/storage/v1/object/public/Media%20X/${media.path}`);
    expectErrorBody(res, 400);
  });
});
