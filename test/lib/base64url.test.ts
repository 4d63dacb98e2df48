import { describe, expect, it } from "vitest";
import { decodeBase64Url, encodeBase64Url, encodeBase64UrlText } from "../../src/lib/base64url";

describe("encodeBase64UrlText", () => {
  it.each([
    ["", "empty"],
    ['["6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d",3]', "an entity tag's payload"],
    ["a?b>c~", "characters whose base64 has + and /"],
    ["x", "one byte (padding dropped)"],
    ['["id","Zürich — 東京 🚀"]', "text beyond ASCII"],
    ["\u0000\u007f", "ASCII's ends"],
    ["\u0080", "the first character beyond"],
  ])("is the base64url of the UTF-8 bytes: %j (%s)", (text) => {
    const bytes = new TextEncoder().encode(text);
    const encoded = encodeBase64UrlText(text);
    expect(encoded).toBe(encodeBase64Url(bytes));
    expect(encoded).toMatch(/^[A-Za-z0-9_-]*$/);
    expect(new TextDecoder().decode(decodeBase64Url(encoded) ?? undefined)).toBe(text);
  });
});
