import { describe, expect, it } from "vitest";
import { api, createUser } from "../../helpers/api";
import { STRONG_TAG } from "../../helpers/conditional";
import { contractOperations } from "../../helpers/contract";
import { bytesOf, createMedia, downloadByBody, fetchUrl, MEDIA } from "../../helpers/media";

const CONTENT = "0123456789abcdefghij";

async function uploaded() {
  const user = await createUser();
  const media = await createMedia(user, { bytes: bytesOf(CONTENT), name: "digits.txt", type: "text/plain" });
  const download = (headers: Record<string, string> = {}) =>
    api<Uint8Array>(`${MEDIA}/download?url=${encodeURIComponent(media.signedUrl)}`, { auth: user, headers, raw: true });
  const signed = (headers: Record<string, string> = {}) => fetchUrl(media.signedUrl, { headers });
  return { user, media, download, signed };
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("media bytes: validators, 304 and ranges (RFC 9110 §13.1.2, §14, §15.3.7, §15.5.17)", () => {
  it("a download answers its ETag; If-None-Match with it is 304 with no body, on the API download and the signed link", async () => {
    const { download, signed } = await uploaded();
    const whole = await download();
    expect(whole.status).toBe(200);
    expect(text(whole.body)).toBe(CONTENT);
    expect(whole.headers.get("Accept-Ranges")).toBe("bytes");
    const tag = whole.headers.get("ETag") ?? "";
    expect(tag).toMatch(STRONG_TAG);
    for (const ifNoneMatch of [tag, `W/${tag}`, `"other", ${tag}`, "*"]) {
      const api304 = await download({ "If-None-Match": ifNoneMatch });
      expect(api304.status, ifNoneMatch).toBe(304);
      expect(api304.body.byteLength).toBe(0);
      expect(api304.headers.get("ETag")).toBe(tag);
      const signed304 = await signed({ "If-None-Match": ifNoneMatch });
      expect(signed304.status, ifNoneMatch).toBe(304);
      expect(signed304.bytes.byteLength).toBe(0);
    }
    expect(text((await download({ "If-None-Match": '"other"' })).body)).toBe(CONTENT);
    expect((await download({ "If-Match": '"other"' })).status).toBe(412);
    expect((await signed({ "If-Match": tag })).status).toBe(200);
  });

  it("Range: one range is a 206 with Content-Range; outside the file a 416 with bytes */size; several ranges the whole file", async () => {
    const { download, signed } = await uploaded();
    const size = CONTENT.length;
    for (const [range, expected, contentRange] of [
      ["bytes=0-3", "0123", `bytes 0-3/${size}`],
      ["bytes=10-", "abcdefghij", `bytes 10-19/${size}`],
      ["bytes=-5", "fghij", `bytes 15-19/${size}`],
      ["bytes=18-100", "ij", `bytes 18-19/${size}`],
    ] as const) {
      const res = await download({ Range: range });
      expect(res.status, range).toBe(206);
      expect(text(res.body), range).toBe(expected);
      expect(res.headers.get("Content-Range"), range).toBe(contentRange);
      expect(res.headers.get("Content-Length"), range).toBe(String(expected.length));
      const viaLink = await signed({ Range: range });
      expect(viaLink.status, range).toBe(206);
      expect(text(viaLink.bytes), range).toBe(expected);
    }
    for (const range of ["bytes=20-", "bytes=100-200", "bytes=-0"]) {
      const refused = await download({ Range: range });
      expect(refused.status, range).toBe(416);
      expect(refused.headers.get("Content-Range"), range).toBe(`bytes */${size}`);
      expect(JSON.parse(text(refused.body))).toMatchObject({ code: "range_not_satisfiable", details: { size } });
    }
    for (const range of ["bytes=0-1,4-5", "items=0-3", "bytes=5-2"]) {
      const res = await download({ Range: range });
      expect(res.status, range).toBe(200);
      expect(text(res.body), range).toBe(CONTENT);
    }
  });

  it("If-Range: the range only for the version it names, else the whole file", async () => {
    const { download } = await uploaded();
    const tag = (await download()).headers.get("ETag") ?? "";
    const ranged = await download({ Range: "bytes=0-1", "If-Range": tag });
    expect(ranged.status).toBe(206);
    expect(text(ranged.body)).toBe("01");
    const whole = await download({ Range: "bytes=0-1", "If-Range": '"older"' });
    expect(whole.status).toBe(200);
    expect(text(whole.body)).toBe(CONTENT);
  });

  it("another user's file is a 404 whatever the preconditions or range", async () => {
    const { media } = await uploaded();
    const other = await createUser();
    const res = await api(`${MEDIA}/download?url=${encodeURIComponent(media.signedUrl)}`, {
      auth: other,
      headers: { Range: "bytes=0-1", "If-None-Match": "*" },
    });
    expect(res.status).toBe(404);
  });
});

const operations = await contractOperations();
/** The contract's `Accept-Ranges` on an answer of an operation, or null. */
const declared = (name: string, status: string) =>
  (operations.find((entry) => entry.name === name)?.operation.responses[status]?.headers?.["Accept-Ranges"] as
    | { schema?: { example?: unknown } }
    | undefined) ?? null;

describe("media bytes: Accept-Ranges where ranges can be asked for (RFC 9110 §14.3)", () => {
  it("GET downloads and signed links send it on 200, 206 and 304, and the contract declares it there, with an example", async () => {
    const { download, signed } = await uploaded();
    const tag = (await download()).headers.get("ETag") ?? "";
    for (const [headers, status] of [
      [{}, "200"],
      [{ Range: "bytes=0-1" }, "206"],
      [{ "If-None-Match": tag }, "304"],
    ] as const) {
      expect((await download(headers)).headers.get("Accept-Ranges"), status).toBe("bytes");
      expect((await signed(headers)).headers.get("Accept-Ranges"), status).toBe("bytes");
      for (const name of ["GET /api/v1/media/download", "GET /media/signed"]) {
        expect(declared(name, status)?.schema?.example, `${name} ${status}`).toBe("bytes");
      }
    }
  });

  it("POST /api/v1/media/download takes no Range: its answer announces no ranges and carries no tag of its own", async () => {
    const { user, media } = await uploaded();
    const res = await downloadByBody(user, { bucket: "media", path: media.path });
    expect(res.status).toBe(200);
    expect(res.headers.get("Accept-Ranges")).toBeNull();
    expect(res.headers.get("ETag")).toBeNull();
    expect(declared("POST /api/v1/media/download", "200")).toBeNull();
  });
});
