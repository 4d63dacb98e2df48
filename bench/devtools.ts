// A devtools protocol client for a `wrangler dev` server's Worker isolate, through wrangler's
// inspector proxy (one client at a time): what the reminders section follows the console with
// (reminders-console.ts) and what `npm run bench:cpu -- --profile` profiles with (cpu.ts).

const CONNECT_TIMEOUT_MS = 10_000;

export interface DevtoolsMessage {
  id?: number;
  method?: string;
  result?: unknown;
  params?: { timestamp?: number; args?: { value?: unknown; description?: string }[] };
}

export interface Devtools {
  /** Sends `method` and resolves with its result; rejects if the connection ends first or it takes too long. */
  call(method: string, params?: object): Promise<unknown>;
  /** Calls `listener` with every message from the runtime: answers and events. */
  onMessage(listener: (message: DevtoolsMessage) => void): void;
  /** Why the connection ended before close() was called, if it did. */
  error(): string | null;
  close(): void;
}

/** Connects to the devtools endpoint at `inspector` (http://host:port); resolves once the socket is open. */
export async function openDevtools(inspector: string): Promise<Devtools> {
  const targets = (await (await fetch(`${inspector}/json/list`)).json()) as { webSocketDebuggerUrl?: string }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`No devtools target at ${inspector}/json/list`);
  // The proxy wants an Origin it knows (or none and no User-Agent): Node's WebSocket takes headers.
  const init = { headers: { Origin: "http://localhost" } };
  const socket = new WebSocket(url, init as unknown as string[]);
  let failure: string | null = null;
  let closing = false;
  const pending = new Map<number, { answer: (result: unknown) => void; fail: (error: Error) => void }>();
  const fail = (why: string) => {
    failure ??= why;
    for (const call of pending.values()) call.fail(new Error(`${failure} (${url})`));
    pending.clear();
  };

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`devtools at ${url} did not answer`)), CONNECT_TIMEOUT_MS);
    socket.addEventListener("open", () => {
      clearTimeout(timer);
      resolve();
    });
    socket.addEventListener("error", () => {
      fail("devtools connection error");
      clearTimeout(timer);
      reject(new Error(`${failure} (${url})`));
    });
    socket.addEventListener("close", (event) => {
      if (!closing) fail(`devtools connection closed (${event.code} ${event.reason})`);
      clearTimeout(timer);
      reject(new Error(failure ?? "closed"));
    });
  });

  const listeners: ((message: DevtoolsMessage) => void)[] = [];
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as DevtoolsMessage;
    if (message.id !== undefined) {
      pending.get(message.id)?.answer(message.result);
      pending.delete(message.id);
    }
    for (const listener of listeners) listener(message);
  });
  let lastId = 0;
  return {
    call: (method, params = {}) =>
      new Promise((answer, reject) => {
        if (failure) return reject(new Error(`${failure} (${url})`));
        const id = ++lastId;
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`devtools at ${url} did not answer ${method}`));
        }, CONNECT_TIMEOUT_MS);
        const settle =
          <T>(then: (value: T) => void) =>
          (value: T) => {
            clearTimeout(timer);
            then(value);
          };
        pending.set(id, { answer: settle(answer), fail: settle(reject) });
        socket.send(JSON.stringify({ id, method, params }));
      }),
    onMessage: (listener) => listeners.push(listener),
    error: () => failure,
    close: () => {
      closing = true;
      socket.close();
    },
  };
}
