// What an `Authorization` header holds, read without importing anything: the error envelope
// (app-frame.ts) builds a 401's challenge from it, and app-frame is evaluated at every isolate's
// startup, before any route's module.

const BEARER = /^Bearer\s+(\S+)\s*$/i;
/** The Bearer scheme with something after it: a bare `Bearer` carries no authentication information. */
const BEARER_WITH_PARAMETERS = /^\s*Bearer\s+\S/i;
const BARE_API_KEY = /^\s*(sr_\S+)\s*$/;

/**
 * The credential of an `Authorization` header: `Bearer <token>`, or a bare
 * `sr_...` key (what a person pastes into the explorer's API-key field).
 * `Bearer sr_...` stays the documented form.
 */
export function credentialOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  return BEARER.exec(header)?.[1] ?? BARE_API_KEY.exec(header)?.[1];
}

const REALM = 'Bearer realm="workspace-api"';

/**
 * A 401's challenge (RFC 6750 §3.1): `invalid_token` for a credential that was read and refused
 * (unknown, malformed, revoked, expired); `invalid_request` for a Bearer header holding more than a
 * token (`Bearer a b`); no error code when the request carried no credential (none, a bare
 * `Bearer`) or one of another scheme (`Basic ...`), as §3.1 asks of a request that lacks any
 * authentication information.
 */
export function bearerChallenge(authorization: string | undefined): string {
  if (credentialOf(authorization) !== undefined) return `${REALM}, error="invalid_token"`;
  if (authorization !== undefined && BEARER_WITH_PARAMETERS.test(authorization))
    return `${REALM}, error="invalid_request"`;
  return REALM;
}

/** A 403's challenge for a token that lacks the scope an operation needs (RFC 6750 §3.1). */
export const insufficientScopeChallenge = (scope: string): string =>
  `${REALM}, error="insufficient_scope", scope="${scope}"`;
