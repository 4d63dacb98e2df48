import { type App, type AppOptions, assembleApp } from "./app-frame";
import { accountsRouter } from "./routes/accounts/accounts.index";
import { aiRouter } from "./routes/ai/ai.index";
import { apiKeysRouter } from "./routes/api-keys/api-keys.index";
import { blocksRouter } from "./routes/blocks/blocks.index";
import { changesRouter } from "./routes/changes/changes.index";
import { commentsRouter } from "./routes/comments/comments.index";
import { databaseViewsRouter } from "./routes/database-views/database-views.index";
import { databasesRouter } from "./routes/databases/databases.index";
import { registerDocumentation } from "./routes/documentation/documentation.index";
import { mcpRouter } from "./routes/mcp/mcp.index";
import { mediaRouter } from "./routes/media/media.index";
import { mentionsRouter } from "./routes/mentions/mentions.index";
import { notesImportRouter } from "./routes/notes-import/notes-import.index";
import { pagesRouter } from "./routes/pages/pages.index";
import { paymentsRouter } from "./routes/payments/payments.index";
import { pushSubscriptionsRouter } from "./routes/push-subscriptions/push-subscriptions.index";
import { quickTasksRouter } from "./routes/quick-tasks/quick-tasks.index";
import { remindersRouter } from "./routes/reminders/reminders.index";
import { settingsRouter } from "./routes/settings/settings.index";
import { syncedBlocksRouter } from "./routes/synced-blocks/synced-blocks.index";
import { systemRouter } from "./routes/system/system.index";
import { transcriptionRouter } from "./routes/transcription/transcription.index";
import { webhooksRouter } from "./routes/webhooks/webhooks.index";

export type { AppOptions } from "./app-frame";

/**
 * The Worker's full app: every resource's router, the contract and, where the entry gives it, its
 * explorer (app-frame.ts has the middleware and the error envelope around them). The entries serve
 * it by path prefix, each prefix's routers loaded at its first request (lazy-app.ts); the tests
 * call it whole.
 */
export function createApp(options: AppOptions = {}): App {
  return assembleApp(ROUTERS, (app) => {
    registerDocumentation(app);
    options.registerExplorer?.(app);
  });
}

/** Every resource's router, in the order they are mounted (lazy-app.ts's groups follow it). */
export const ROUTERS = [
  systemRouter,
  accountsRouter,
  apiKeysRouter,
  blocksRouter,
  pagesRouter,
  databasesRouter,
  databaseViewsRouter,
  mentionsRouter,
  commentsRouter,
  paymentsRouter,
  transcriptionRouter,
  notesImportRouter,
  syncedBlocksRouter,
  mediaRouter,
  aiRouter,
  pushSubscriptionsRouter,
  remindersRouter,
  settingsRouter,
  quickTasksRouter,
  changesRouter,
  webhooksRouter,
  mcpRouter,
];
