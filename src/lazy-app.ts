import { getPathNoStrict } from "hono/utils/url";
import { type App, type AppOptions, assembleApp } from "./app-frame";

/**
 * A resource's router and the path prefixes its routes live under (a prefix is whole segments:
 * `/api/v1/blocks` serves `/api/v1/blocks` and `/api/v1/blocks/...`, not `/api/v1/blocksx`).
 * `load` imports the router's module only when called: bundled, its module and the schemas it
 * alone uses are evaluated then, not at the Worker's startup.
 */
export interface RouteGroup {
  prefixes: readonly string[];
  load: () => Promise<App>;
}

/**
 * Every resource's router with its prefixes, in app.ts's ROUTERS order (test/lib/lazy-app.test.ts
 * holds the two lists and the prefixes to each other).
 */
export const ROUTE_GROUPS: readonly RouteGroup[] = [
  {
    prefixes: ["/", "/health", "/test"],
    load: async () => (await import("./routes/system/system.index")).systemRouter,
  },
  { prefixes: ["/auth"], load: async () => (await import("./routes/accounts/accounts.index")).accountsRouter },
  {
    prefixes: ["/api/v1/api-keys"],
    load: async () => (await import("./routes/api-keys/api-keys.index")).apiKeysRouter,
  },
  {
    prefixes: ["/api/v1/blocks", "/api/blocks"],
    load: async () => (await import("./routes/blocks/blocks.index")).blocksRouter,
  },
  {
    prefixes: ["/api/v1/pages", "/api/pages"],
    load: async () => (await import("./routes/pages/pages.index")).pagesRouter,
  },
  {
    prefixes: ["/api/v1/databases"],
    load: async () => (await import("./routes/databases/databases.index")).databasesRouter,
  },
  {
    prefixes: ["/api/database-views"],
    load: async () => (await import("./routes/database-views/database-views.index")).databaseViewsRouter,
  },
  {
    prefixes: ["/api/v1/mentions", "/api/v1/backlinks"],
    load: async () => (await import("./routes/mentions/mentions.index")).mentionsRouter,
  },
  {
    prefixes: ["/api/v1/comments"],
    load: async () => (await import("./routes/comments/comments.index")).commentsRouter,
  },
  {
    prefixes: ["/api/v1/me", "/payments"],
    load: async () => (await import("./routes/payments/payments.index")).paymentsRouter,
  },
  {
    prefixes: ["/api/transcription"],
    load: async () => (await import("./routes/transcription/transcription.index")).transcriptionRouter,
  },
  {
    prefixes: ["/notes-import"],
    load: async () => (await import("./routes/notes-import/notes-import.index")).notesImportRouter,
  },
  {
    prefixes: ["/api/v1/synced-blocks"],
    load: async () => (await import("./routes/synced-blocks/synced-blocks.index")).syncedBlocksRouter,
  },
  { prefixes: ["/api/v1/media", "/media"], load: async () => (await import("./routes/media/media.index")).mediaRouter },
  { prefixes: ["/api/v1/ai", "/api/ai"], load: async () => (await import("./routes/ai/ai.index")).aiRouter },
  {
    prefixes: ["/api/v1/push-subscriptions"],
    load: async () => (await import("./routes/push-subscriptions/push-subscriptions.index")).pushSubscriptionsRouter,
  },
  {
    prefixes: ["/api/v1/reminders", "/api/v1/notifications"],
    load: async () => (await import("./routes/reminders/reminders.index")).remindersRouter,
  },
  {
    prefixes: ["/api/v1/settings"],
    load: async () => (await import("./routes/settings/settings.index")).settingsRouter,
  },
  {
    prefixes: ["/api/v1/tasks"],
    load: async () => (await import("./routes/quick-tasks/quick-tasks.index")).quickTasksRouter,
  },
  {
    prefixes: ["/api/v1/changes", "/api/v1/blocks"],
    load: async () => (await import("./routes/changes/changes.index")).changesRouter,
  },
  {
    prefixes: ["/api/v1/webhooks"],
    load: async () => (await import("./routes/webhooks/webhooks.index")).webhooksRouter,
  },
  { prefixes: ["/mcp"], load: async () => (await import("./routes/mcp/mcp.index")).mcpRouter },
];

/** Whether a request path lies under a prefix (`/` is the root path alone). */
export function underPrefix(path: string, prefix: string): boolean {
  if (prefix === "/") return path === "/";
  return path === prefix || (path.startsWith(prefix) && path[prefix.length] === "/");
}

/** Every prefix, each once, in ROUTE_GROUPS order. */
const PREFIXES = [...new Set(ROUTE_GROUPS.flatMap((group) => group.prefixes))];

type Fetch = (request: Request, env: Env, executionCtx?: ExecutionContext) => Response | Promise<Response>;

/**
 * The full app (app.ts) served so that startup pays for none of the routes: a request under a
 * group's prefix is answered by an app of the groups claiming that prefix (in ROUTERS order, with
 * the same middleware and error envelope), assembled at the first request under it; any other path,
 * the contract and its explorer included, by the full app, built at its first request. Every route
 * that can match a path under a prefix belongs to a group claiming it, so each path meets the same
 * routes, the same 404 and the same 405 as in the full app.
 */
export function createLazyApp(options: AppOptions = {}): { fetch: Fetch } {
  // Apps, not promises of them: a request never awaits what another request's work settles
  // (workerd refuses I/O on behalf of another request, and where modules are not bundled, as under
  // the test runner, import() is I/O). Requests that meet a prefix before its app is built each
  // build one; the first kept serves every later request.
  const apps = new Map<string, App>();
  const appFor = async (prefix: string | undefined): Promise<App> => {
    const key = prefix ?? "";
    const built = apps.get(key);
    if (built) return built;
    const app =
      prefix === undefined
        ? (await import("./app")).createApp(options)
        : assembleApp(
            await Promise.all(
              ROUTE_GROUPS.filter((group) => group.prefixes.includes(prefix)).map((group) => group.load()),
            ),
          );
    const kept = apps.get(key) ?? app;
    apps.set(key, kept);
    return kept;
  };
  return {
    fetch(request, env, executionCtx) {
      // The path as the app reads it (not strict: a trailing slash is dropped).
      const path = getPathNoStrict(request);
      const prefix = PREFIXES.find((candidate) => underPrefix(path, candidate));
      // A built app is handed the request at once, with no promise of ours between the runtime and it.
      const built = apps.get(prefix ?? "");
      if (built) return built.fetch(request, env, executionCtx);
      return appFor(prefix).then((app) => app.fetch(request, env, executionCtx));
    },
  };
}
