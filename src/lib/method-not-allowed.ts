import type { RouterRoute } from "hono/types";

const patternCache = new WeakMap<RouterRoute[], { method: string; pattern: RegExp }[]>();

function compile(routes: RouterRoute[]) {
  let compiled = patternCache.get(routes);
  if (!compiled) {
    compiled = routes
      .filter((route) => route.method !== "ALL" && !route.path.includes("*"))
      .map((route) => ({
        method: route.method,
        pattern: new RegExp(`^${route.path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+")}/?$`),
      }));
    patternCache.set(routes, compiled);
  }
  return compiled;
}

/** Methods that some route serves at `path`: non-empty means the request was a wrong method, not a wrong path. */
export function findAllowedMethods(routes: RouterRoute[], path: string): string[] {
  const methods = new Set(
    compile(routes)
      .filter((route) => route.pattern.test(path))
      .map((route) => route.method),
  );
  return [...methods].sort();
}
