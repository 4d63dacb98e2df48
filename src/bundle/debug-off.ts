// The `debug` package, left out of the Worker's bundle through wrangler.toml's [alias]: file-type's
// ZIP reader (@tokenizer/inflate) logs its steps through it when the DEBUG environment variable names
// them, which a Worker never sets. Its browser and Node builds and their dependencies (ms,
// supports-color) both came along; a logger that is never enabled stands here instead.

interface Debugger {
  (...args: unknown[]): void;
  enabled: boolean;
  namespace: string;
  extend: (namespace: string) => Debugger;
}

/** `debug(namespace)`: a logger that is off and prints nothing. */
export default function debug(namespace: string): Debugger {
  const log = Object.assign(() => {}, {
    enabled: false,
    namespace,
    extend: (suffix: string) => debug(`${namespace}:${suffix}`),
  });
  return log;
}
