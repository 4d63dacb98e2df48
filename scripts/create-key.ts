// npm run key -- <email>
// Creates the local user if needed and prints a new API key as the last line.
// Writes to the same local D1 that `npm run dev` serves, so the key works at once; with
// KEY_PERSIST_TO=<dir>, to the local D1 of `wrangler dev --persist-to <dir>` instead (the README test's).
import { execFileSync } from "node:child_process";
import { generateApiKey } from "../src/auth/api-key-format.ts";

const email = process.argv[2]?.trim().toLowerCase();
if (!email || !/^[^\s@'"]+@[^\s@'"]+$/.test(email)) {
  console.error("Usage: npm run key -- <email>");
  process.exit(1);
}

const persistTo = process.env.KEY_PERSIST_TO ? ["--persist-to", process.env.KEY_PERSIST_TO] : [];
const wrangler = (...args: string[]) =>
  execFileSync("wrangler", [...args, ...persistTo], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, CI: "true" },
  });

// SQL string literal; the email is already restricted to characters without quotes.
const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

wrangler("d1", "migrations", "apply", "DB", "--local");
const key = await generateApiKey();
wrangler(
  "d1",
  "execute",
  "DB",
  "--local",
  "--command",
  `INSERT INTO users (id, email) VALUES (${literal(crypto.randomUUID())}, ${literal(email)}) ON CONFLICT (email) DO NOTHING;
   INSERT INTO api_keys (id, user_id, name, key_hash, display_prefix, display_suffix)
   SELECT ${literal(crypto.randomUUID())}, id, 'Local key', ${literal(key.hash)}, ${literal(key.displayPrefix)}, ${literal(key.displaySuffix)}
   FROM users WHERE email = ${literal(email)};`,
);
console.log(`API key for ${email} (shown once; use it as "Authorization: Bearer <key>"):`);
console.log(key.raw);
