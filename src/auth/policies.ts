import type { Actor } from "../lib/context";
import { type ApiError, forbidden } from "../lib/errors";
import type { ApiKeyScope } from "./scopes";

// Per-action rules, apart from handlers and used by routes and services alike.
// Visibility is not here: it stays inside every query (services/blocks/visibility.ts),
// so an object the caller may not see is a 404 before any of these run. These
// decide what a caller who can see an object may do with it: each throws a 403.

/** Blocks of this type are the service's own records (provider audit logs): never user-written. */
export const INTERNAL_BLOCK_TYPE = "provider_audit_log";

/** Only an app session may do this (API-key management): an API key gets a 403. */
export function requireSession(actor: Actor): void {
  if (actor.via !== "session") {
    throw forbidden("This action needs an app session, not an API key", { authenticated_with: actor.via });
  }
}

/** The 403 of an actor whose credential lacks `scope`, or undefined when it carries it. */
export function missingScope(actor: Actor, scope: ApiKeyScope): ApiError | undefined {
  if (actor.scopes.includes(scope)) return undefined;
  return forbidden(`This API key does not have the '${scope}' scope`, {
    required_scope: scope,
    key_scopes: [...actor.scopes],
  });
}

/** A 403 unless the actor's credential carries `scope`. */
export function requireScope(actor: Actor, scope: ApiKeyScope): void {
  const refusal = missingScope(actor, scope);
  if (refusal) throw refusal;
}

/** Only the author of `record` may change it (comments, mentions). */
export function requireAuthor(actor: Actor, record: { created_by: string | null }, what = "object"): void {
  if (record.created_by !== actor.userId) {
    throw forbidden(`Only the author of this ${what} may change it`);
  }
}

/** Only the owner may do this; shared objects (no owner) have none, so nobody may. */
export function requireOwner(actor: Actor, record: { created_by: string | null }, what = "object"): void {
  if (record.created_by === null || record.created_by !== actor.userId) {
    throw forbidden(`Only the owner of this ${what} may do this`);
  }
}

/** The 403 of creating an internal block or turning a block into one, or undefined for any other type. */
export function internalBlockTypeRefusal(type: string | undefined): ApiError | undefined {
  if (type !== INTERNAL_BLOCK_TYPE) return undefined;
  return forbidden(`Blocks of type '${INTERNAL_BLOCK_TYPE}' are internal and cannot be created or converted to`, {
    type,
  });
}

/** Nobody creates an internal block or turns a block into one. */
export function refuseInternalBlockType(type: string | undefined): void {
  const refusal = internalBlockTypeRefusal(type);
  if (refusal) throw refusal;
}
