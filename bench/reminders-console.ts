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

interface DevtoolsMessage {
  id?: number;
  method?: string;
  params?: { timestamp?: number; args?: { value?: unknown; description?: string }[] };
}

const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Connects to the devtools endpoint at `inspector` (http://host:port) and calls
 * `onLine` for every console line from now on; resolves once the runtime has
 * confirmed the subscription, so nothing written after that is missed.
 */
export async function followConsole(inspector: string, onLine: (line: ConsoleLine) => void): Promise<ConsoleFollower> {
  const targets = (await (await fetch(`${inspector}/json/list`)).json()) as { webSocketDebuggerUrl?: string }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`No devtools target at ${inspector}/json/list`);
  // The proxy wants an Origin it knows (or none and no User-Agent): Node's WebSocket takes headers.
  const init = { headers: { Origin: "http://localhost" } };
  const socket = new WebSocket(url, init as unknown as string[]);
  let failure: string | null = null;
  let closing = false;
  const ENABLE_ID = 1;

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`devtools at ${url} did not answer`)), CONNECT_TIMEOUT_MS);
    socket.addEventListener("open", () => socket.send(JSON.stringify({ id: ENABLE_ID, method: "Runtime.enable" })));
    socket.addEventListener("error", () => {
      failure ??= "devtools connection error";
      clearTimeout(timer);
      reject(new Error(`${failure} (${url})`));
    });
    socket.addEventListener("close", (event) => {
      if (!closing) failure ??= `devtools connection closed (${event.code} ${event.reason})`;
      clearTimeout(timer);
      reject(new Error(failure ?? "closed"));
    });
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as DevtoolsMessage;
      if (message.id === ENABLE_ID) {
        clearTimeout(timer);
        resolve();
        return;
      }
      if (message.method !== "Runtime.consoleAPICalled" || !message.params) return;
      const text = (message.params.args ?? []).map((arg) => String(arg.value ?? arg.description ?? "")).join(" ");
      onLine({ timestamp: message.params.timestamp ?? Date.now(), text });
    });
  });
  return {
    error: () => failure,
    close: () => {
      closing = true;
      socket.close();
    },
  };
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
