/**
 * Catalogs of hostile values, each with a short label that names it in failure messages
 * and in KNOWN_DEFECTS conditions.
 */
import fc from "fast-check";
import { Deep, Obj, Raw, Repeat, type Tmpl } from "./template";

export interface Labeled<T = Tmpl> {
  label: string;
  value: T;
}

const labeled = <T>(entries: [string, T][]): Labeled<T>[] => entries.map(([label, value]) => ({ label, value }));

export const WRONG_TYPES = labeled<Tmpl>([
  ["zero", 0],
  ["negative", -1],
  ["fraction", 1.5],
  ["true", true],
  ["false", false],
  ["null", null],
  ["empty-string", ""],
  ["string", "x"],
  ["empty-array", []],
  ["empty-object", new Obj([])],
  ["mixed-array", [1, "a", null, new Obj([])]],
  ["object", new Obj([["a", 1]])],
]);

export const ODD_STRINGS = labeled<string>([
  ["nul", "a\u0000b"],
  ["lone-high-surrogate", "\ud800"],
  ["lone-low-surrogate", "x\udfffy"],
  ["rtl-override", "\u202etxt.exe"],
  ["bom", "\ufeffbom"],
  ["zero-width", "\u200b\u200c\u200d"],
  ["astral", "\u{1d54f}\u{1f600}\u{1f469}\u200d\u{1f469}\u200d\u{1f467}"],
  ["combining", "e\u0301\u0301\u0301\u0301"],
  ["noncharacter", "\uffff\ufffe"],
  ["control", "\u0001\u001b[31m\u007f"],
  ["newlines", "a\r\nb\nc\u2028d"],
  ["whitespace", " \t "],
  ["sql", "' OR 1=1 --"],
  ["html", "<script>alert(1)</script>"],
  ["percent", "%00%2F%ZZ"],
  ["dot-dot", "../../etc/passwd"],
  ["json-text", '{"a":1}'],
  ["backslashes", '\\\\"\\u0000'],
  ["template", "$\u{7b}7*7}{{7*7}}"],
  ["proto", "__proto__"],
  ["fts-syntax", '"unbalanced NEAR(a b) col:term ^x * AND OR NOT'],
  ["like-wildcards", "%_\\%"],
  ["markdown", "# h\n\n- [ ] x\n\n```\ncode\n```\n| a |\n|---|\n![i](javascript:alert(1))"],
]);

export const NAN_LIKE = labeled<string>(
  ["NaN", "Infinity", "-Infinity", "1e999", "-0", "0x10", "1_000", " 1", "+1", "1e-400", "null", "undefined", "٣"].map(
    (text) => [`nan-like:${text}`, text],
  ),
);

export const BIG_NUMBERS = labeled<Tmpl>([
  ["1e999", new Raw("1e999")],
  ["-1e999", new Raw("-1e999")],
  ["max-double", Number.MAX_VALUE],
  ["min-double", -Number.MAX_VALUE],
  ["unsafe-int", 2 ** 53 + 2],
  ["unsafe-negative", -(2 ** 53 + 2)],
  ["30-digits", new Raw("123456789012345678901234567890")],
  ["denormal", 5e-324],
  ["negative-zero", new Raw("-0")],
  ["int32-overflow", 2147483648],
  ["long-fraction", new Raw("1.00000000000000000000000000001")],
]);

export const HUGE_STRINGS = labeled<Tmpl>([
  ["long-129", new Repeat("a", 129)],
  ["long-2001", new Repeat("b", 2001)],
  ["huge-10k", new Repeat("a", 10_000)],
  ["huge-200k", new Repeat("word ", 40_000)],
  ["huge-over-1mb", new Repeat("\u00e9", 600_000)],
  ["huge-emoji", new Repeat("\u{1f600}", 5000)],
  ["huge-nul", new Repeat("\u0000", 2000)],
  ["huge-surrogates", new Repeat("\udc00", 2000)],
]);

/** Text that is cheap to send and may be costly to parse: markdown nesting, unclosed markup. */
export const TEXT_BOMBS = labeled<Tmpl>([
  ["md-deep-quote", new Repeat("> ", 5000)],
  ["md-deep-list", Array.from({ length: 300 }, (_, i) => `${"  ".repeat(i)}- item\n`).join("")],
  ["md-emphasis", new Repeat("*a_", 20_000)],
  ["md-brackets", new Repeat("[", 20_000)],
  ["md-backticks", new Repeat("`", 20_000)],
  ["md-links", new Repeat("[a](b ", 10_000)],
  ["md-html", new Repeat("<div>", 10_000)],
  ["md-wide-table", `|${"a|".repeat(2000)}\n|${"-|".repeat(2000)}\n|${"b|".repeat(2000)}`],
  ["md-headings", new Repeat("# h\n", 20_000)],
]);

export const DEEP_VALUES = labeled<Tmpl>([
  ["deep-65-arrays", new Deep(65, "array")],
  ["deep-65-objects", new Deep(65, "object")],
  ["deep-1000-arrays", new Deep(1000, "array")],
  ["deep-1000-objects", new Deep(1000, "object")],
  ["deep-20000-arrays", new Deep(20_000, "array")],
  ["deep-100000-arrays", new Deep(100_000, "array")],
]);

export const DATE_LIKE = labeled<string>(
  [
    "2026-02-30",
    "2026-13-01",
    "0000-00-00",
    "9999-12-31T23:59:59.999Z",
    "+275760-09-13T00:00:00Z",
    "-000001-01-01",
    "2026-01-01T25:00:00Z",
    "2026-01-01T00:00:00+99:99",
    "yesterday",
    "1700000000",
  ].map((text) => [`date-like:${text}`, text]),
);

/** Keys an unknown field is added under. */
export const EXTRA_KEYS = labeled<string>([
  ["extra", "extra"],
  ["__proto__", "__proto__"],
  ["constructor", "constructor"],
  ["prototype", "prototype"],
  ["empty-key", ""],
  ["nul-key", "\u0000"],
  ["toString", "toString"],
  ["hasOwnProperty", "hasOwnProperty"],
  ["long-key", "k".repeat(5000)],
]);

const pick = <T>(entries: Labeled<T>[]) => fc.constantFrom(...entries);

/** Any hostile JSON value. */
export const badValue: fc.Arbitrary<Labeled> = fc.oneof(
  { weight: 4, arbitrary: pick(WRONG_TYPES) },
  { weight: 3, arbitrary: pick<Tmpl>(ODD_STRINGS) },
  { weight: 2, arbitrary: pick<Tmpl>(NAN_LIKE) },
  { weight: 2, arbitrary: pick(BIG_NUMBERS) },
  { weight: 2, arbitrary: pick(HUGE_STRINGS) },
  { weight: 2, arbitrary: pick(DEEP_VALUES) },
  { weight: 1, arbitrary: pick<Tmpl>(DATE_LIKE) },
  { weight: 1, arbitrary: pick(TEXT_BOMBS) },
);

/** Hostile strings for query parameters and path segments. */
export const badText: fc.Arbitrary<Labeled> = fc.oneof(
  { weight: 3, arbitrary: pick<Tmpl>(ODD_STRINGS) },
  { weight: 3, arbitrary: pick<Tmpl>(NAN_LIKE) },
  {
    weight: 3,
    arbitrary: pick<Tmpl>(
      labeled([
        ["wrong-type:abc", "abc"],
        ["wrong-type:yes", "yes"],
        ["wrong-type:array", "[1,2]"],
        ["wrong-type:object", "{}"],
        ["list", "1,2"],
        ["empty", ""],
        ["out-of-range:-1", "-1"],
        ["out-of-range:0", "0"],
        ["out-of-range:1e9", "1000000000"],
        ["out-of-range:20-digits", "99999999999999999999"],
        ["fraction", "1.5"],
        ["int32-overflow", "2147483648"],
      ]),
    ),
  },
  { weight: 1, arbitrary: pick(HUGE_STRINGS.filter((h) => h.label !== "huge-over-1mb")) },
  { weight: 1, arbitrary: pick<Tmpl>(DATE_LIKE) },
  { weight: 1, arbitrary: pick(TEXT_BOMBS.filter((b) => b.label !== "md-deep-list")) },
);

/** Bodies that are not JSON, or not quite. */
export const MALFORMED_JSON = labeled<string>([
  ["empty", ""],
  ["whitespace", " \n"],
  ["open-brace", "{"],
  ["close-brace", "}"],
  ["missing-value", '{"a":}'],
  ["single-quotes", "{'type':'page'}"],
  ["bare-keys", "{type:1}"],
  ["trailing-comma", '{"type":"page",}'],
  ["unterminated-array", "[1,2,"],
  ["NaN", "NaN"],
  ["undefined", "undefined"],
  ["bom", '\ufeff{"type":"page"}'],
  ["trailing-garbage", '{"type":"page"}garbage'],
  ["two-documents", "{}{}"],
  ["comment", '{"type":"page" /* c */}'],
  ["escaped-surrogate", '{"type":"\\ud800","title":"\\udc00"}'],
  ["bad-escape", '{"type":"\\x41"}'],
  ["raw-control", '{"type":"a\u0001b"}'],
  ["nul", "\u0000"],
  ["huge-number", '{"position":1e999999}'],
  ["xml", "<type>page</type>"],
  ["form", "type=page&title=x"],
]);

export const BAD_CONTENT_TYPES: (string | null)[] = [
  null,
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=fuzzboundary",
  "multipart/form-data",
  "application/json; charset=utf-16",
  "application/JSON",
  "application/json;",
  "application/merge-patch+json",
  "application/vnd.api+json",
  "application/xml",
  "*/*",
  "",
  "application/json, text/plain",
  "text/json",
  "application/json; charset=unknown-8bit",
];

/** Invalid UTF-8 and other byte-level oddities. */
export const BAD_BYTES = labeled<number[]>([
  ["invalid-utf8", [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]],
  ["overlong-slash", [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]],
  ["utf8-surrogate", [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]],
  ["utf16le-bom", [0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]],
  ["nul-bytes", [0x00, 0x00, 0x00, 0x00]],
  ["gzip-magic", [0x1f, 0x8b, 0x08, 0x00, 0x00]],
]);

/** Who a request authenticates as: the fuzzing user (the default), the other user, or nobody. */
export type AuthPlan =
  | { kind: "self"; label: string }
  | { kind: "self-lowercase"; label: string }
  | { kind: "self-bare"; label: string }
  | { kind: "other"; label: string }
  /** An app-session JWT (the bearerAuth scheme) for `sub`, valid for `ttl` seconds (negative: expired). */
  | {
      kind: "session";
      label: string;
      sub: "self" | "other" | "unknown" | "number" | "empty";
      ttl: number;
      secret: "right" | "wrong";
    }
  | { kind: "header"; label: string; value: string | null };

/** Authorization headers other than the fuzzing user's own key. */
export const AUTH_VARIANTS: AuthPlan[] = [
  { kind: "header", label: "none", value: null },
  { kind: "header", label: "basic", value: "Basic eDp5" },
  { kind: "header", label: "bearer-empty", value: "Bearer" },
  { kind: "header", label: "short-key", value: "Bearer sr_short" },
  { kind: "header", label: "garbage-jwt", value: "Bearer a.b.c" },
  { kind: "header", label: "alg-none-jwt", value: "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0." },
  { kind: "header", label: "huge", value: `Bearer sr_${"a".repeat(8000)}` },
  { kind: "other", label: "other-user" },
  { kind: "self-lowercase", label: "lowercase-scheme" },
  { kind: "self-bare", label: "bare-key" },
  { kind: "session", label: "session", sub: "self", ttl: 3600, secret: "right" },
  { kind: "session", label: "session-other-user", sub: "other", ttl: 3600, secret: "right" },
  { kind: "session", label: "session-unknown-user", sub: "unknown", ttl: 3600, secret: "right" },
  { kind: "session", label: "session-expired", sub: "self", ttl: -60, secret: "right" },
  { kind: "session", label: "session-wrong-secret", sub: "self", ttl: 3600, secret: "wrong" },
  { kind: "session", label: "session-numeric-sub", sub: "number", ttl: 3600, secret: "right" },
  { kind: "session", label: "session-empty-sub", sub: "empty", ttl: 3600, secret: "right" },
];

/** Request headers the API does not document, with odd values (header values must stay Latin-1). */
export const ODD_HEADERS: { label: string; name: string; value: string }[] = [
  { label: "request-id-huge", name: "X-Request-Id", value: "r".repeat(5000) },
  { label: "request-id-markup", name: "X-Request-Id", value: '"><script>x</script>' },
  { label: "request-id-latin1", name: "X-Request-Id", value: "\u00ff\u00fe\u00e9" },
  { label: "content-encoding-gzip", name: "Content-Encoding", value: "gzip" },
  { label: "content-encoding-br", name: "Content-Encoding", value: "br" },
  { label: "method-override", name: "X-HTTP-Method-Override", value: "DELETE" },
  { label: "accept-html", name: "Accept", value: "text/html" },
  { label: "accept-xml-only", name: "Accept", value: "application/xml" },
  { label: "origin", name: "Origin", value: "https://evil.example" },
  { label: "if-match", name: "If-Match", value: '"not-an-etag"' },
  { label: "if-none-match", name: "If-None-Match", value: "*" },
  { label: "cf-connecting-ip", name: "CF-Connecting-IP", value: "not-an-ip" },
  { label: "range", name: "Range", value: "bytes=0-1" },
  { label: "forwarded-host", name: "X-Forwarded-Host", value: "evil.example" },
];

/** Methods sent instead of the documented one. */
export const OTHER_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** Shapes of the path other than the documented one (trailing slash, other case, doubled slashes, encoded letters). */
export const PATH_SHAPES = ["trailing-slash", "upper-case", "double-slash", "dot-segment", "encoded-letter"] as const;
export type PathShape = (typeof PATH_SHAPES)[number];
