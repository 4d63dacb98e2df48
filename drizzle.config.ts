import { defineConfig } from "drizzle-kit";

// Generates D1 migrations (migrations/NNNN_*.sql) from src/db/schema.ts.
// FTS5 tables and their triggers are hand-written migrations beside them.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema.ts",
  out: "./migrations",
});
