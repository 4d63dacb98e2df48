// Follows a `wrangler dev` server's console through its devtools endpoint, with the
// runtime's own timestamps.
//
// Why not wrangler's stdout: wrangler prints the runtime's console lines without the
// time they were written, and under a burst of them (one per alarm run) its output
// lagged the runtime by 5-7 s on a 2-core machine. The devtools protocol event for
// each line (Runtime.consoleAPICalled) carries the runtime's timestamp, so the
// bench knows when a line was written whenever it arrives.
//
// wrangler's inspector proxy takes one devtools client at a time; the bench is the only one.

import { openDevtools } from "./devtools.ts";

export interface ConsoleLine {
  /** When the runtime wrote the line, epoch ms. */
  timestamp: number;
  text: string;
}

export interface ConsoleFollower {
  /** Why the connection ended before close() was called, if it did. */
  error: () => string | null;
  close: () => void;
}

/**
 * Connects to the devtools endpoint at `inspector` (http://host:port) and calls
 * `onLine` for every console line from now on; resolves once the runtime has
 * confirmed the subscription, so nothing written after that is missed.
 */
export async function followConsole(inspector: string, onLine: (line: ConsoleLine) => void): Promise<ConsoleFollower> {
  const devtools = await openDevtools(inspector);
  devtools.onMessage((message) => {
    if (message.method !== "Runtime.consoleAPICalled" || !message.params) return;
    const text = (message.params.args ?? []).map((arg) => String(arg.value ?? arg.description ?? "")).join(" ");
    onLine({ timestamp: message.params.timestamp ?? Date.now(), text });
  });
  try {
    await devtools.call("Runtime.enable");
  } catch (error) {
    devtools.close();
    throw error;
  }
  return { error: devtools.error, close: devtools.close };
}

/** The JSON object a line holds, if it holds one with a `message`. */
export function jsonLine(text: string): ({ message: string } & Record<string, unknown>) | null {
  if (!text.startsWith("{")) return null;
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && typeof (value as { message?: unknown }).message === "string"
      ? (value as { message: string } & Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
