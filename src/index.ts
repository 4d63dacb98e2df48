import { createLazyApp } from "./lazy-app";
import { registerExplorer } from "./routes/documentation/explorer";
import { createWorker } from "./worker";

// The development entry (`wrangler dev`, the tests, the bench): the app with its API explorer.
// Deployments use src/index.production.ts, the same Worker without the explorer's assets.

export { ReminderQueue } from "./durable-objects/reminder-queue";

export default createWorker(createLazyApp({ registerExplorer }));
