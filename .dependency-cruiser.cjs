// The layering of src/, checked by `npm run check` (dependency-cruiser). Type-only imports count:
// a type that points upward ties the layers together as much as a value does.

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment:
        "Two files that need each other load in an order nobody chose and cannot be read apart: a fact or type in the wrong place, to move down.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-circular-folders",
      comment:
        "A folder is a room (services/quick-tasks, services/settings, ...): two rooms that need each other are one. lib, db and auth are exempt: lib/context.ts assembles the request context from db and auth, which use lib's own helpers (errors, secrets); their files still form no circle.",
      severity: "error",
      scope: "folder",
      from: { pathNot: "^src/(lib|db|auth)(/|$)" },
      to: { circular: true },
    },
    {
      name: "lower-layers-stay-below-services",
      comment:
        "db, lib, domain, schemas and auth are what services and routes are built on: an import upward would make a change above one below, and (mostly) a circle.",
      severity: "error",
      from: { path: "^src/(db|lib|domain|schemas|auth)/" },
      to: { path: "^src/(services|routes)/" },
    },
    {
      name: "domain-is-the-floor",
      comment:
        "domain/ holds the facts schemas and services share (providers, reminder offsets, recurrence rules, ...): it builds on nothing else of the service, so anything may use it.",
      severity: "error",
      from: { path: "^src/domain/" },
      to: { path: "^src/", pathNot: "^src/domain/" },
    },
    {
      name: "services-stay-below-routes",
      comment:
        "Services take a context and answer data; HTTP is the routes' business, and other callers (cron, queues) have none.",
      severity: "error",
      from: { path: "^src/services/" },
      to: { path: "^src/routes/" },
    },
    {
      name: "mcp-stays-beside-routes",
      comment:
        "mcp/ is the MCP server: another door to the services, as routes/ is one. What services and the layers below do cannot depend on who calls them.",
      severity: "error",
      from: { path: "^src/(db|lib|domain|schemas|auth|services)/" },
      to: { path: "^src/mcp/" },
    },
    {
      name: "mcp-reads-only-route-schemas",
      comment:
        "A tool takes the zod schemas of the REST operation it mirrors (one source for both inputs) and calls the services its handler calls: never a handler, a route declaration or a router.",
      severity: "error",
      from: { path: "^src/mcp/" },
      to: { path: "^src/routes/", pathNot: "\\.schemas\\.ts$" },
    },
    {
      name: "heavy-packages-load-when-needed",
      comment:
        "stripe, pdf-lib and chrono-node cost every isolate's startup as they load (Stripe's resource tree, pdf-lib's decompressed font encodings, chrono's parsers): they are imported with import() where a request needs them (docs/performance.md, Startup), or by the modules that are (the next rule). Type imports cost nothing.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/services/(content/pdf|content/pdf-layout|quick-tasks/local-parser)\\.ts$" },
      to: {
        path: "node_modules/(stripe|pdf-lib|chrono-node)/",
        dependencyTypesNot: ["type-only", "type-import", "dynamic-import"],
      },
    },
    {
      name: "lazily-loaded-modules-stay-lazy",
      comment:
        "content/pdf.ts (with pdf-layout.ts) and quick-tasks/local-parser.ts are loaded with import() by the one request that needs them: a static import elsewhere would load their package at startup again.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/services/content/pdf\\.ts$" },
      to: {
        path: "^src/services/(content/pdf|content/pdf-layout|quick-tasks/local-parser)\\.ts$",
        dependencyTypesNot: ["type-only", "type-import", "dynamic-import"],
      },
    },
    {
      name: "routers-load-by-prefix",
      comment:
        "The entries serve the app by path prefix (src/lazy-app.ts): each resource's router, with its schemas, is loaded with import() at the first request under its prefix, and the full app (app.ts) at the first request for the contract or a path of no prefix. A static import of either would build every route at startup again (routes/documentation/ registers no route: app.ts adds it to the full app).",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/app\\.ts$" },
      to: {
        path: "^src/(app\\.ts|routes/(?!documentation/)[^/]+/[^/]+\\.index\\.ts)$",
        dependencyTypesNot: ["type-only", "type-import", "dynamic-import"],
      },
    },
  ],
  options: {
    // The service's files, and the packages as leaves (for the rule above).
    includeOnly: "(^src/|node_modules/)",
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
  },
};
