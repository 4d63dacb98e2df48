import { INTERNAL_BLOCK_TYPE } from "../../auth/policies";
import { blocks } from "../../db/schema";
import type { RequestContext, UserContext } from "../../lib/context";
import { newId } from "../../lib/ids";
import { log } from "../../lib/log";
import type { CompletionOutcome } from "./completion";
import { auditsPrompts } from "./config";
import type { CompletionRequest, CredentialSource, ProviderTarget } from "./types";

// Each completion of the stream leaves one internal `provider_audit_log` block owned by the
// caller: never shown by any user-facing read (services/blocks/visibility.ts filters the type out
// of every query), never creatable or convertible through the API (auth/policies.ts). Legacy
// calls leave none: see docs/decisions.md (AI, audit).

/** Prompt text kept in a record (AI_AUDIT_PROMPTS = "true") is cut at this many characters per message. */
export const AUDIT_PROMPT_MAX_CHARACTERS = 8000;

/** The `properties` of an audit record. */
export interface AuditProperties {
  provider: string;
  model: string;
  /** `ok`, or the status of the stream's error event (499: the client went away). */
  status: "ok" | number;
  response_status: number | null;
  latency_ms: number;
  usage: CompletionOutcome["usage"];
  finish_reason: string | null;
  /** Whose key was used: the caller's, the server's, or none. Never the key. */
  credential: CredentialSource;
  request_id: string;
  prompt?: { system: string | null; messages: { role: string; content: string }[] };
}

const cut = (text: string) =>
  text.length > AUDIT_PROMPT_MAX_CHARACTERS ? `${text.slice(0, AUDIT_PROMPT_MAX_CHARACTERS)}…` : text;

export function auditProperties(
  ctx: Pick<RequestContext, "env" | "requestId">,
  call: CompletionRequest,
  target: ProviderTarget,
  outcome: CompletionOutcome,
): AuditProperties {
  return {
    provider: call.provider,
    model: call.model,
    status: outcome.status,
    response_status: outcome.responseStatus,
    latency_ms: outcome.latencyMs,
    usage: outcome.usage,
    finish_reason: outcome.finishReason,
    credential: target.source,
    request_id: ctx.requestId,
    ...(auditsPrompts(ctx)
      ? {
          prompt: {
            system: call.system === undefined ? null : cut(call.system),
            messages: call.messages.map(({ role, content }) => ({ role, content: cut(content) })),
          },
        }
      : {}),
  };
}

/** Writes the audit record of one completion (one INSERT). */
export async function writeAuditRecord(
  ctx: UserContext,
  call: CompletionRequest,
  target: ProviderTarget,
  outcome: CompletionOutcome,
): Promise<void> {
  const now = ctx.now().toISOString();
  await ctx.db.insert(blocks).values({
    id: newId(),
    type: INTERNAL_BLOCK_TYPE,
    properties: JSON.stringify(auditProperties(ctx, call, target, outcome)),
    createdBy: ctx.actor.userId,
    lastEditedBy: ctx.actor.userId,
    createdAt: now,
    updatedAt: now,
  });
}

/** One JSON log line per completion: what happened, never a key or prompt text. */
export function logCompletion(
  ctx: Pick<RequestContext, "requestId">,
  route: "stream" | "legacy",
  call: CompletionRequest,
  target: ProviderTarget,
  outcome: CompletionOutcome,
): void {
  log(ctx, outcome.error ? "warn" : "info", "AI completion", {
    service: "ai",
    route,
    provider: call.provider,
    model: call.model,
    credential: target.source,
    status: outcome.status,
    response_status: outcome.responseStatus,
    latency_ms: outcome.latencyMs,
    finish_reason: outcome.finishReason,
    usage: outcome.usage,
  });
}
