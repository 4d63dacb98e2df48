// The reminders bench's push service: a plain HTTP server on loopback that takes every
// Web Push request the Worker sends (answering 201, as a push service does) and counts
// them per subscription endpoint and per Topic header. The Worker sends one Topic per
// (reminder, firing) (push-delivery.ts `pushTopic`), so the same Topic twice on one
// endpoint is the same reminder pushed twice. The bodies are encrypted for the
// subscription's keys: they are read and dropped.
import { once } from "node:events";
import { createServer } from "node:http";

export interface PushTally {
  requests: number;
  /** Distinct (endpoint, Topic) pairs: the reminders pushed. */
  pushed: number;
  /** Requests beyond one per (endpoint, Topic). */
  duplicates: number;
  /** Requests with no Topic header (not countable per reminder). */
  withoutTopic: number;
}

export interface PushReceiver {
  /** The subscription endpoint of the seeded user number `index`. */
  endpoint: (index: number) => string;
  tally: () => PushTally;
  close: () => Promise<void>;
}

export async function startPushReceiver(): Promise<PushReceiver> {
  const seen = new Map<string, number>();
  let requests = 0;
  let withoutTopic = 0;
  const server = createServer((request, response) => {
    requests += 1;
    const topic = request.headers.topic;
    if (typeof topic === "string") {
      const key = `${request.url} ${topic}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    } else {
      withoutTopic += 1;
    }
    request.resume();
    request.on("end", () => {
      response.statusCode = 201;
      response.end();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("The push receiver has no port");
  return {
    endpoint: (index) => `http://127.0.0.1:${address.port}/push/${index}`,
    tally: () => ({
      requests,
      pushed: seen.size,
      duplicates: [...seen.values()].reduce((sum, count) => sum + count - 1, 0),
      withoutTopic,
    }),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close").catch(() => undefined);
    },
  };
}
