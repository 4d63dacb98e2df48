import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { countCredential, countCredentialTimes } from "../../src/auth/credential-limit";
import type { Actor } from "../../src/lib/context";
import { startEarlyInAWindow } from "../helpers/rate-windows";

// A credential's count is taken in this isolate before the quota binding is asked, so requests of
// one credential that overlap each see the others counted: a batch is counted whole or not at all.

/** A quota of three, counted by a binding that admits three a minute. */
const tiny = { ...env, API_RATE_LIMITER: env.TEST_TINY_LIMITER, API_RATE_LIMIT_REQUESTS: "3" };

const someKey = (): Actor => ({
  userId: crypto.randomUUID(),
  via: "api_key",
  apiKeyId: crypto.randomUUID(),
  scopes: ["read", "write"],
});

describe("counting a credential's requests", () => {
  it("a batch and a request that overlap: the batch takes what is left whole, the request is refused", async () => {
    await startEarlyInAWindow();
    const actor = someKey();
    const now = new Date();
    const [batch, single] = await Promise.all([
      countCredentialTimes(tiny, actor, now, 3),
      countCredential(tiny, actor, now),
    ]);
    expect(batch).toMatchObject({ admitted: true, remaining: 0 });
    expect(single).toMatchObject({ admitted: false, remaining: 0 });
  });

  it("two requests that overlap for the last one left: one of them is admitted", async () => {
    await startEarlyInAWindow();
    const actor = someKey();
    const now = new Date();
    expect(await countCredentialTimes(tiny, actor, now, 2)).toMatchObject({ admitted: true, remaining: 1 });
    const answers = await Promise.all([countCredential(tiny, actor, now), countCredential(tiny, actor, now)]);
    expect(answers.map((answer) => answer?.admitted).sort()).toEqual([false, true]);
  });

  it("a batch that does not fit counts nothing; one that fits still does", async () => {
    await startEarlyInAWindow();
    const actor = someKey();
    const now = new Date();
    expect(await countCredential(tiny, actor, now)).toMatchObject({ admitted: true, remaining: 2 });
    expect(await countCredentialTimes(tiny, actor, now, 3)).toMatchObject({ admitted: false, remaining: 2 });
    expect(await countCredentialTimes(tiny, actor, now, 2)).toMatchObject({ admitted: true, remaining: 0 });
  });

  it("a binding that fails gives back what was taken: the request is not served and uses nothing", async () => {
    await startEarlyInAWindow();
    const actor = someKey();
    const now = new Date();
    expect(await countCredential(tiny, actor, now)).toMatchObject({ admitted: true, remaining: 2 });
    // The platform's binding, failing once (as a call to it can): injected around the real one.
    const failing = {
      ...tiny,
      API_RATE_LIMITER: { limit: () => Promise.reject(new Error("rate limiter unavailable")) },
    } as unknown as Env;
    await expect(countCredentialTimes(failing, actor, now, 2)).rejects.toThrow("rate limiter unavailable");
    expect(await countCredentialTimes(tiny, actor, now, 2)).toMatchObject({ admitted: true, remaining: 0 });
  });

  it("nothing is counted or limited without the binding", async () => {
    const unbound = { ...env, API_RATE_LIMITER: undefined } as unknown as Env;
    expect(await countCredential(unbound, someKey(), new Date())).toBeNull();
  });
});
