import { type IdentityProvider, invalidSession } from "./provider";

/** Session ids the development provider accepts: `dev:` and the email to sign in. */
export const DEVELOPMENT_SESSION_PREFIX = "dev:";
// No control or invisible format characters (NUL, zero-width space): they would make another user
// of what reads as the same address.
const EMAIL = /^[^\s@<>()[\]\\,;:"\p{Cc}\p{Cf}]{1,64}@[^\s@<>()[\]\\,;:"\p{Cc}\p{Cf}]{1,255}$/u;

/**
 * Local use only: `dev:<email>` signs that email in, with no account anywhere,
 * so `npm run dev` can hand out sessions offline. Never selectable in production
 * (see identity/index.ts).
 */
export const developmentProvider: IdentityProvider = {
  name: "development",
  async confirm(_ctx, sessionId) {
    if (!sessionId.startsWith(DEVELOPMENT_SESSION_PREFIX)) {
      throw invalidSession("the development provider takes 'dev:<email>'");
    }
    const email = sessionId.slice(DEVELOPMENT_SESSION_PREFIX.length).trim().toLowerCase();
    if (!EMAIL.test(email)) throw invalidSession("'dev:' must be followed by an email address");
    return { externalId: `development:${email}`, email, name: email.split("@")[0] ?? null };
  },
};
