import type { UserContext } from "../../lib/context";
import { log } from "../../lib/log";
import { logCompletion, writeAuditRecord } from "./audit";
import { type CompletionOptions, runCompletion } from "./completion";
import type { CompletionRequest, ProviderTarget } from "./types";

/** A comment (`: ping`) goes out after this long without an event, so proxies keep an idle stream open. */
export const HEARTBEAT_MS = 15_000;

/** What the stream needs of hono's SSE writer (`streamSSE`'s SSEStreamingApi). */
export interface SseWriter {
  writeSSE(message: { event?: string; data: string }): Promise<void>;
  write(text: string): Promise<unknown>;
  /** Called when the response stream is cancelled: the client went away. */
  onAbort(listener: () => void | Promise<void>): void;
}

export interface StreamOptions extends Omit<CompletionOptions, "signal"> {
  heartbeatMs?: number;
}

/** A thrown error as a log line may show it: without the key, whatever the error says. */
const redacted = (error: unknown, target: ProviderTarget): string => {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return target.apiKey ? text.replaceAll(target.apiKey, "[key]") : text;
};

/**
 * Streams one completion to `writer` as SSE: `start`, `delta`s, then `done` or `error`, with a
 * `: ping` comment after every 15 s of silence. The upstream call is aborted when the writer is
 * (the client went away) or the request is. When the stream is over, the audit record is written
 * (kept alive with waitUntil, and awaited, so the response ends once it is stored).
 */
export async function streamCompletion(
  ctx: UserContext,
  call: CompletionRequest,
  target: ProviderTarget,
  writer: SseWriter,
  options: StreamOptions = {},
): Promise<void> {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const clientGone = new AbortController();
  writer.onAbort(() => clientGone.abort());
  let heartbeat: ReturnType<typeof setTimeout> | undefined;
  const armHeartbeat = () => {
    clearTimeout(heartbeat);
    heartbeat = setTimeout(() => {
      void writer.write(": ping\n\n");
      armHeartbeat();
    }, heartbeatMs);
  };
  armHeartbeat();
  try {
    const outcome = await runCompletion(
      ctx,
      call,
      target,
      async (event) => {
        await writer.writeSSE({ event: event.event, data: JSON.stringify(event.data) });
        armHeartbeat();
      },
      { ...options, signal: clientGone.signal },
    );
    clearTimeout(heartbeat);
    logCompletion(ctx, "stream", call, target, outcome);
    const audit = writeAuditRecord(ctx, call, target, outcome).catch((error: unknown) => {
      log(ctx, "error", "the audit record could not be written", { service: "ai", error: redacted(error, target) });
    });
    ctx.waitUntil(audit);
    await audit;
  } catch (error) {
    log(ctx, "error", "AI stream failed", { service: "ai", error: redacted(error, target) });
    await writer.writeSSE({
      event: "error",
      data: JSON.stringify({
        status: 500,
        message: "Unexpected failure; report the X-Request-Id",
        timestamp: ctx.now().toISOString(),
      }),
    });
  } finally {
    clearTimeout(heartbeat);
  }
}
