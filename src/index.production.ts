import { createLazyApp } from "./lazy-app";
import { createWorker } from "./worker";

// The production entry (`[env.production] main` in wrangler.toml): the Worker of src/index.ts
// without the API explorer, so its script and stylesheet (480 KB gzip) are not uploaded. The OpenAPI
// document stays at /documentation/openapi.json.

export { ReminderQueue } from "./durable-objects/reminder-queue";

export default createWorker(createLazyApp());
