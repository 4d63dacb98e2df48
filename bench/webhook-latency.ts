// A webhook delivery's latency from the write to the receiver, on `wrangler dev` (local Queues):
// a receiver on loopback in this process, one webhook for `block.created`, then pages created
// one at a time at a steady pace. Each delivery is verified as a receiver would (Standard
// Webhooks, the `standardwebhooks` package) and timed from its event's `occurred_at` (the
// commit, stamped by D1 on this machine's clock) to its arrival. Part of `npm run bench --
// databases`, after the writes.
import { once } from "node:events";
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";
import { percentile } from "./load.ts";

export interface DeliveryLatency {
  pages: number;
  delivered: number;
  /** Deliveries whose `webhook-id` had arrived before. */
  duplicates: number;
  /** Deliveries whose signature did not verify. */
  unverified: number;
  p50: number;
  p99: number;
  max: number;
  seconds: number;
}

interface Target {
  origin: string;
  headers: Record<string, string>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function call(target: Target, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(target.origin + path, {
    method,
    headers: { ...target.headers, "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/**
 * Creates `pages` pages, one every `intervalMs`, with a webhook on a local receiver, and waits
 * up to `waitSeconds` after the last for every delivery. The webhook is deleted at the end.
 */
export async function measureDeliveryLatency(
  target: Target,
  settings: { pages: number; intervalMs: number; waitSeconds: number },
): Promise<DeliveryLatency> {
  const latencies: number[] = [];
  const seen = new Set<string>();
  const ours = new Set<string>();
  let duplicates = 0;
  let unverified = 0;
  let verifier: Webhook | null = null;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const arrived = Date.now();
      const body = Buffer.concat(chunks).toString("utf8");
      const id = String(req.headers["webhook-id"] ?? "");
      try {
        verifier?.verify(body, req.headers as Record<string, string>);
      } catch {
        unverified += 1;
      }
      const payload = JSON.parse(body) as { data?: { object_id?: string; occurred_at?: string } };
      if (seen.has(id)) duplicates += 1;
      else if (ours.has(payload.data?.object_id ?? "")) {
        seen.add(id);
        latencies.push(arrived - Date.parse(payload.data?.occurred_at ?? ""));
      }
      res.writeHead(204).end();
    });
  });
  receiver.listen(0, "127.0.0.1");
  await once(receiver, "listening");
  const address = receiver.address();
  if (address === null || typeof address === "string") throw new Error("The webhook receiver has no port");
  const webhook = (await call(target, "POST", "/api/v1/webhooks", {
    url: `http://127.0.0.1:${address.port}/hooks`,
    event_types: ["block.created"],
    description: "Benchmark: delivery latency",
  })) as { id: string; secret: string };
  verifier = new Webhook(webhook.secret);
  const started = performance.now();
  try {
    for (let i = 0; i < settings.pages; i++) {
      const next = performance.now() + settings.intervalMs;
      const page = (await call(target, "POST", "/api/v1/pages", { title: `Delivery ${i + 1}` })) as { id: string };
      ours.add(page.id);
      await sleep(Math.max(0, next - performance.now()));
    }
    const deadline = performance.now() + settings.waitSeconds * 1000;
    while (latencies.length < settings.pages && performance.now() < deadline) await sleep(100);
  } finally {
    await call(target, "DELETE", `/api/v1/webhooks/${webhook.id}`).catch(() => undefined);
    receiver.close();
  }
  return {
    pages: settings.pages,
    delivered: latencies.length,
    duplicates,
    unverified,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    max: Math.max(...latencies),
    seconds: (performance.now() - started) / 1000,
  };
}
