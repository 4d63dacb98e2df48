/**
 * What an API key may do. `read`: GET and HEAD (and the few POSTs that only
 * read, which declare it); `write`: everything else. A key has both unless it
 * was made with fewer, so an agent that should only read gets a `read` key.
 * App sessions may do everything.
 */
export const API_KEY_SCOPES = ["read", "write"] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export const ALL_SCOPES: readonly ApiKeyScope[] = API_KEY_SCOPES;

/** The scope a route needs when it does not declare one: reads for GET and HEAD, writes otherwise. */
export const scopeForMethod = (method: string): ApiKeyScope =>
  method.toLowerCase() === "get" || method.toLowerCase() === "head" ? "read" : "write";

/** Scopes as stored (`read,write`), in canonical order; unknown names are dropped. */
export const parseScopes = (stored: string): ApiKeyScope[] =>
  API_KEY_SCOPES.filter((scope) => stored.split(",").includes(scope));

export const formatScopes = (scopes: readonly ApiKeyScope[]): string =>
  API_KEY_SCOPES.filter((scope) => scopes.includes(scope)).join(",");
