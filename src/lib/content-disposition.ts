// One way every file the service answers is named (media downloads and stored objects, exports).

/**
 * `inline` or `attachment`, with the filename (RFC 6266: an ASCII `filename` for clients that read
 * nothing else, and the name itself as RFC 5987 UTF-8 in `filename*`). The ASCII form is the
 * caller's `fallback` when given, else the name with every other character as `_`.
 */
export function contentDisposition(kind: "inline" | "attachment", filename: string, fallback?: string): string {
  const ascii = (fallback ?? filename).replace(/[^\x20-\x7e]|["\\%;]/g, "_") || "file";
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
