// The contract's tags (OpenAPI 3.1 §4.8.1 `tags`), one per resource: every tag an operation names is
// listed here with what it groups, in the order the explorer shows them (test/openapi/contract.test.ts).

export const TAGS = [
  { name: "System", description: "Service information and the health check: open, no credential" },
  { name: "Authentication", description: "Sign-in: a provider's session exchanged for an app-session token" },
  { name: "API keys", description: "The caller's API keys, managed with an app session (never with an API key)" },
  { name: "Account", description: "The signed-in user and their plan" },
  { name: "Blocks", description: "Every block (pages, databases, rows and editor blocks) as one resource" },
  { name: "Pages", description: "Pages and their bodies of editor items, with import and export" },
  { name: "Databases", description: "Database schemas (properties, select options) and row queries" },
  { name: "Database views", description: "Saved views of a database: filters, sorts and layout" },
  { name: "Changes", description: "The change log as a feed: every change of what the caller can see, by cursor" },
  {
    name: "Webhooks",
    description:
      "The change log's events POSTed to your endpoints, signed per Standard Webhooks, with their deliveries",
  },
  { name: "Mentions", description: "Mentions of pages, people and dates inside blocks" },
  { name: "Backlinks", description: "The pages that mention a page" },
  { name: "Comments", description: "Comments and replies on blocks and pages, resolved or open" },
  { name: "Synced blocks", description: "Blocks that follow a source block and copy its content" },
  { name: "Media", description: "Uploaded files in R2: upload, metadata, search, signed URLs and downloads" },
  { name: "Reminders", description: "Reminders on dates, once or recurring (RFC 5545 rules)" },
  { name: "Notifications", description: "The inbox: reminders that came due" },
  { name: "Push subscriptions", description: "Browsers registered for Web Push (RFC 8030, VAPID RFC 8292)" },
  { name: "Quick tasks", description: "Tasks from one line of natural language, into a database" },
  { name: "Settings", description: "The caller's settings" },
  { name: "AI", description: "Completions from AI providers, streamed as server-sent events" },
  { name: "Transcription", description: "Speech to text for audio recordings" },
  { name: "Notes import", description: "Notes from other apps imported as pages" },
  { name: "Payments", description: "Stripe webhooks and subscription changes" },
  { name: "MCP", description: "The Model Context Protocol server for agents (Streamable HTTP, JSON-RPC 2.0)" },
];
