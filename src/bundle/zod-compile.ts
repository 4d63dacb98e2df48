// zod's `z.compile` (zod/v4/core/compile.js), left out of the Worker's bundle through wrangler.toml's
// [alias]: it compiles a schema into a parser with `new Function`, which Workers refuse, and no code
// here or in the packages the service uses calls it (zod parses with its runtime parser, as on any
// runtime without eval). zod/v4/core/index.js re-exports the module and zod/v4/classic/external.js
// names its exports, so each stands here and fails if ever called.

function leftOut(): never {
  throw new Error(
    "zod's compile is left out of the Worker's bundle (wrangler.toml [alias], src/bundle/zod-compile.ts)",
  );
}

export const INVALID = Symbol.for("zod.compile.invalid");
export class ZodCompileAsyncError extends Error {}
export class ZodCompileUnsupportedError extends Error {}
export const compile = leftOut;
export const compileFn = leftOut;
export const withParser = leftOut;
