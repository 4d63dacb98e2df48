import { servedInline } from "./content-types";

// How stored bytes go out: with their stored type, as an attachment unless a browser only
// displays that type (never HTML, SVG, XML or scripts inline), and in a sandbox (no scripts, no
// same-origin access, even if a browser were to render it). `X-Content-Type-Options: nosniff` is
// on every response of the service.

/** Every media response: the document, if a browser shows it, runs nothing and has an opaque origin. */
export const MEDIA_CSP = "sandbox";

/** `inline` or `attachment`, with the filename (ASCII fallback, and RFC 5987 UTF-8 for the rest). */
export function contentDisposition(kind: "inline" | "attachment", filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%;]/g, "_") || "file";
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

export interface ServedObject {
  body: ReadableStream;
  headers: Record<string, string>;
}

/**
 * Headers for an object served through a signed link, from what was stored with it: the
 * disposition written at upload, and always `attachment` for a type a browser could run.
 */
export function signedObjectResponse(object: R2ObjectBody, maxAgeSeconds: number): ServedObject {
  const contentType = object.httpMetadata?.contentType ?? "application/octet-stream";
  const stored = object.httpMetadata?.contentDisposition;
  const disposition = servedInline(contentType)
    ? (stored ?? "inline")
    : stored?.startsWith("attachment")
      ? stored
      : "attachment";
  return {
    body: object.body,
    headers: {
      "Content-Type": contentType,
      "Content-Length": String(object.size),
      "Content-Disposition": disposition,
      "Content-Security-Policy": MEDIA_CSP,
      ETag: object.httpEtag,
      "Cache-Control": `private, max-age=${Math.max(0, Math.min(maxAgeSeconds, 3600))}`,
    },
  };
}

/** Headers for a download through the API: always an attachment, never cached. */
export function downloadResponse(
  object: R2ObjectBody,
  record: { filename: string; content_type: string },
): ServedObject {
  return {
    body: object.body,
    headers: {
      "Content-Type": record.content_type,
      "Content-Length": String(object.size),
      "Content-Disposition": contentDisposition("attachment", record.filename),
      "Content-Security-Policy": MEDIA_CSP,
      ETag: object.httpEtag,
      "Cache-Control": "private, no-store",
    },
  };
}
