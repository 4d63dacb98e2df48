// zod's locales index as the Worker's bundle has it: English only. zod v4 re-exports every locale
// (`z.locales`, `z.core.locales`), which keeps about 270 KB of messages in the bundle although only
// `en`, the one zod configures itself with, is ever used. wrangler.toml's [alias] points zod's
// own import of its locales index ("../locales/index.js") here.

export { default as en } from "zod/v4/locales/en.js";
