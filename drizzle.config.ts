import { defineConfig } from "drizzle-kit";

// Generates D1 migrations (migrations/NNNN_*.sql) from src/db/schema.ts. FTS5 tables, views and
// triggers are hand-written migrations beside them; npm run db:meta writes migrations/meta from all
// of them (migrations/README.md).
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema.ts",
  out: "./migrations",
});
