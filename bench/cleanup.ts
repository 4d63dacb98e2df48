// Things to undo whatever happens: servers to stop, temp dirs to remove. Run
// in reverse order on normal exit, on error, and on Ctrl-C / SIGTERM.
const pending: (() => Promise<unknown>)[] = [];

/** Registers `undo`; the returned function runs it now (once) and forgets it. */
export function defer(undo: () => Promise<unknown>): () => Promise<void> {
  pending.push(undo);
  return async () => {
    const index = pending.indexOf(undo);
    if (index === -1) return;
    pending.splice(index, 1);
    await undo();
  };
}

export async function undoAll(): Promise<void> {
  for (let undo = pending.pop(); undo; undo = pending.pop()) {
    try {
      await undo();
    } catch (error) {
      console.error("Cleanup step failed:", error);
    }
  }
}

/** On a signal: clean up, then exit as a signal-terminated process would. */
export function undoAllOnSignals(): void {
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping servers and removing temp dirs...`);
      void undoAll().finally(() => process.exit(code));
    });
  }
}
