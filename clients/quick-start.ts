// The README's first hour through a typed client: openapi-fetch on the types openapi-typescript
// generates from the contract (.contract/api.d.ts, written by scripts/typed-client.ts, which
// type-checks this file under `strict` and then runs it: node clients/quick-start.ts <origin>).
import createClient from "openapi-fetch";
import type { paths } from "../.contract/api.d.ts";

const origin = process.argv[2] ?? "http://127.0.0.1:8787";

/** The body of a 2xx, or a failure naming the operation and the error body. */
function ok<T>(what: string, result: { data?: T; error?: unknown; response: Response }): T {
  if (!result.response.ok || result.data === undefined) {
    throw new Error(`${what}: ${result.response.status} ${JSON.stringify(result.error)}`);
  }
  return result.data;
}

// Sign in with the development identity provider; the app session makes an API key.
const anonymous = createClient<paths>({ baseUrl: origin });
const email = `typed-client-${crypto.randomUUID()}@example.com`;
const signedIn = ok("sign in", await anonymous.POST("/auth/complete", { body: { sessionId: `dev:${email}` } }));
const session = createClient<paths>({
  baseUrl: origin,
  headers: { Authorization: `Bearer ${signedIn.sessionData.token}` },
});
const created = ok("create an API key", await session.POST("/api/v1/api-keys", { body: { name: "Typed client" } }));
const api = createClient<paths>({ baseUrl: origin, headers: { Authorization: `Bearer ${created.key}` } });

// A page (`type` left to its default), read back.
const page = ok("create a page", await api.POST("/api/v1/pages", { body: { title: "Launch plan" } }));
const read = ok("read the page", await api.GET("/api/v1/pages/{id}", { params: { path: { id: page.id } } }));
if (read.id !== page.id || read.type !== "page") throw new Error(`read another page: ${JSON.stringify(read)}`);

// A database with three rows, queried two rows at a time by following X-Next-Cursor (`filters`
// and `sorts` left to their defaults).
const database = ok(
  "create a database",
  await api.POST("/api/v1/pages", { body: { type: "database", title: "Tasks" } }),
);
const path = { id: database.id };
const rows = [{ title: "Plan" }, { title: "Build" }, { title: "Ship" }];
ok("add rows", await api.POST("/api/v1/databases/{id}/rows/batch", { params: { path }, body: { rows } }));
const titles: string[] = [];
let cursor: string | undefined;
let pages = 0;
do {
  const result = await api.POST("/api/v1/databases/{id}/query", {
    params: { path },
    body: cursor === undefined ? { limit: 2 } : { limit: 2, cursor },
  });
  const queried = ok("query the database", result);
  for (const row of queried) titles.push(String(row.properties_by_name.title));
  cursor = result.response.headers.get("X-Next-Cursor") ?? undefined;
  pages += 1;
} while (cursor !== undefined);
if (pages !== 2 || titles.join() !== "Plan,Build,Ship") throw new Error(`the cursor walk read ${titles} in ${pages}`);

// A comment on the page.
const comment = ok(
  "comment",
  await api.POST("/api/v1/comments", { body: { block_id: page.id, content: "Ship on Friday?" } }),
);

// An upload as multipart/form-data with a Blob, then a signed URL that fetches its bytes.
const bytes = new TextEncoder().encode("hello from a typed client\n");
const uploaded = ok(
  "upload",
  await api.POST("/api/v1/media/upload", {
    body: { file: new Blob([bytes], { type: "text/plain" }), filename: "hello.txt" },
    bodySerializer: (body) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(body)) {
        if (value instanceof Blob) form.append(name, value, "hello.txt");
        else if (typeof value === "string") form.append(name, value);
      }
      return form;
    },
  }),
);
const link = ok("sign a URL", await api.GET("/api/v1/media/{id}/url", { params: { path: { id: uploaded.id } } }));
const signed = await fetch(link.signedUrl);
if ((await signed.text()) !== new TextDecoder().decode(bytes)) throw new Error("the signed URL served other bytes");

console.log(
  JSON.stringify({ page: page.id, database: database.id, rows: titles, comment: comment.id, media: uploaded.id }),
);
