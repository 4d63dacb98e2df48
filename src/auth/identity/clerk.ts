import { z } from "zod";
import type { RequestContext } from "../../lib/context";
import { callThirdParty, OutboundError } from "../../lib/outbound";
import { DEVELOPMENT_SESSION_PREFIX } from "./development";
import { type IdentityProvider, invalidSession, providerNotConfigured } from "./provider";

// Clerk's Backend API: the session is looked up by id with the server's secret
// key (GET /v1/sessions/{id}), then its user (GET /v1/users/{id}).
// https://clerk.com/docs/reference/backend-api

const CLERK_API = "https://api.clerk.com/v1";
/** Clerk ids (`sess_...`, `user_...`): checked before they go into a URL path. */
const CLERK_ID = /^[A-Za-z0-9_]{1,128}$/;

const ClerkSession = z.object({
  id: z.string(),
  user_id: z.string().regex(CLERK_ID),
  status: z.string(),
  /** Milliseconds since the epoch. */
  expire_at: z.number().optional(),
});

const ClerkUser = z.object({
  id: z.string(),
  first_name: z.string().nullish(),
  last_name: z.string().nullish(),
  username: z.string().nullish(),
  primary_email_address_id: z.string().nullish(),
  email_addresses: z
    .array(
      z.object({
        id: z.string(),
        email_address: z.string(),
        verification: z.object({ status: z.string() }).nullish(),
      }),
    )
    .default([]),
});

async function clerkGet(ctx: RequestContext, secretKey: string, path: string): Promise<unknown | null> {
  const response = await callThirdParty(ctx, "clerk", `${CLERK_API}${path}`, {
    headers: { Authorization: `Bearer ${secretKey}`, Accept: "application/json" },
    timeoutMs: 10_000,
    // 404: no such session or user; 400/422: an id Clerk does not read as one. Anything
    // else but 200 (a wrong secret key, an outage) is the provider failing, not the caller.
    accept: (status) => status === 200 || status === 400 || status === 404 || status === 422,
  });
  if (response.status !== 200) {
    await response.body?.cancel();
    return null;
  }
  try {
    return await response.json();
  } catch {
    throw new OutboundError("clerk", "status", response.status);
  }
}

/** The answer did not have the shape Clerk documents: the provider is failing. */
const unreadable = () => new OutboundError("clerk", "status", 200);

export const clerkProvider: IdentityProvider = {
  name: "clerk",
  async confirm(ctx, sessionId) {
    if (sessionId.startsWith(DEVELOPMENT_SESSION_PREFIX)) {
      throw invalidSession("'dev:' session ids are only accepted by the development provider");
    }
    if (!CLERK_ID.test(sessionId)) throw invalidSession("not a Clerk session id");
    const secretKey = ctx.env.CLERK_SECRET_KEY;
    if (!secretKey) {
      throw providerNotConfigured("Sign-in is not configured on this server: set the CLERK_SECRET_KEY secret");
    }
    const sessionBody = await clerkGet(ctx, secretKey, `/sessions/${sessionId}`);
    if (sessionBody === null) throw invalidSession("unknown session");
    const session = ClerkSession.safeParse(sessionBody);
    if (!session.success) throw unreadable();
    if (session.data.status !== "active") throw invalidSession(`session is ${session.data.status}`);
    if (session.data.expire_at !== undefined && session.data.expire_at <= ctx.now().getTime()) {
      throw invalidSession("session has expired");
    }
    const userBody = await clerkGet(ctx, secretKey, `/users/${session.data.user_id}`);
    if (userBody === null) throw invalidSession("the session's user no longer exists");
    const user = ClerkUser.safeParse(userBody);
    if (!user.success) throw unreadable();
    // Only the primary address, and only once verified: an email is how a user made by
    // `npm run key` is linked, so an unverified one must never claim it.
    const primary = user.data.email_addresses.find((address) => address.id === user.data.primary_email_address_id);
    if (primary?.verification?.status !== "verified") {
      throw invalidSession("the session's user has no verified primary email address");
    }
    const fullName = [user.data.first_name, user.data.last_name].filter(Boolean).join(" ");
    return {
      externalId: `clerk:${user.data.id}`,
      email: primary.email_address.trim().toLowerCase(),
      name: fullName || user.data.username || null,
    };
  },
};
