// Modules the Worker's bundle leaves out: wrangler.toml's [alias] points each at this file, whose
// exports stand for the ones its importers name. All of them are reached only on paths this service
// never takes, so none is called; if one ever were, it would fail loudly rather than quietly.
// - ajv, ajv-formats: the MCP SDK's default JSON Schema validator (server/index.js imports it
//   statically); src/mcp/server.ts passes the @cfworker/json-schema validator instead.
// - zod/v3, zod-to-json-schema: the MCP SDK's support for Zod 3 schemas; every schema here is Zod 4.
// - @pdf-lib/upng: pdf-lib's PNG decoder, for embedding PNG images; the PDF export embeds none.
// - zod's `z.fromJSONSchema` (zod/v4/classic/from-json-schema.js): JSON Schema to Zod; no code here or
//   in the packages the service uses calls it (they go the other way, Zod to JSON Schema).
// - pdf-lib's forms (src/bundle/pdf-form.ts).

function leftOut(): never {
  throw new Error("This module is left out of the Worker's bundle (wrangler.toml [alias], src/bundle/left-out.ts)");
}

/** ajv's `Ajv` class, ajv-formats' `addFormats`, @pdf-lib/upng's `UPNG` (whose `decode` is missing) and pdf-lib's `PDFForm` (whose `of` is). */
export default leftOut;
/** zod-to-json-schema's converter. */
export const zodToJsonSchema = leftOut;
/** zod's `fromJSONSchema`. */
export const fromJSONSchema = leftOut;
/** zod/v3's `object`, which the MCP SDK calls for a shape of Zod 3 schemas. */
export const object = leftOut;
