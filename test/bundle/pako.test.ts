// The production bundle answers pdf-lib's imports of pako with fflate (wrangler.toml [alias],
// src/bundle/pako.ts); the tests run the unaliased modules, so the stand-in is checked against
// pako itself here: each side reads what the other writes, and pdf-lib's fonts inflate alike.
import pako from "pako";
import { describe, expect, it } from "vitest";
import standIn from "../../src/bundle/pako";

const text = new TextEncoder().encode("BT /Helvetica 11 Tf (Hello, PDF) Tj ET\n".repeat(200));

describe("pako answered by fflate", () => {
  it("deflates to zlib data that pako inflates back, and inflates what pako deflates", () => {
    expect(pako.inflate(standIn.deflate(text))).toEqual(text);
    expect(standIn.inflate(pako.deflate(text))).toEqual(text);
    expect(standIn.inflate(standIn.deflate(new Uint8Array()))).toEqual(new Uint8Array());
  });

  it("inflates the standard fonts' compressed metrics as pako does", async () => {
    const { default: compressed } = await import("@pdf-lib/standard-fonts/es/Helvetica.compressed.json");
    const bytes = Uint8Array.from(atob(compressed as unknown as string), (c) => c.charCodeAt(0));
    expect(standIn.inflate(bytes)).toEqual(pako.inflate(bytes));
  });
});
