/**
 * A module loaded with `import()` at its first use and kept: later calls answer with the module
 * itself and call `import()` no more. Kept is the module, never the promise of it: a promise still
 * pending belongs to the request that started it, and workerd refuses a request that waits on
 * another request's I/O ("Cannot perform I/O on behalf of a different request"). Bundled, as
 * wrangler deploys and serves the Worker, an `import()` of a loaded module is no I/O; under the test
 * runner, which does not bundle, every `import()` is a call to its module server that concurrent
 * requests share.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: { module: T } | undefined;
  return async () => {
    if (loaded) return loaded.module;
    const module = await load();
    loaded ??= { module };
    return loaded.module;
  };
}
