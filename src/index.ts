import { createApp } from "./app";

export { ReminderQueue } from "./durable-objects/reminder-queue";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
