import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createContext } from "../../../src/lib/context";
import { DEVELOPMENT_VAPID_PUBLIC_KEY, vapidKeys } from "../../../src/services/push/config";
import { base64url, fromBase64url } from "../../helpers/fake-push-service";

/** A fresh VAPID pair, as the documented command makes one: the public point and the private `d`. */
async function keyPair(): Promise<{ publicKey: string; privateKey: string }> {
  const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  const publicKey = new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer);
  const jwk = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey;
  return { publicKey: base64url(publicKey), privateKey: jwk.d as string };
}

const contextWith = (overrides: Partial<Env>, local = false) =>
  createContext({ env: { ...env, ...overrides }, local: () => local });

const production = async (overrides: Partial<Env> = {}) => {
  const pair = await keyPair();
  return contextWith({
    ENVIRONMENT: "production",
    VAPID_PUBLIC_KEY: pair.publicKey,
    VAPID_PRIVATE_KEY: pair.privateKey,
    VAPID_SUBJECT: "mailto:ops@example.com",
    ...overrides,
  });
};

async function refusal(ctx: ReturnType<typeof contextWith>) {
  const error = await vapidKeys(ctx).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "expected a refusal").toBeDefined();
  return error as { code: string; status: number; message: string; details: { setting: string } };
}

describe("VAPID configuration", () => {
  it("locally (the tests), the committed development pair and wrangler.toml's subject", async () => {
    const keys = await vapidKeys(contextWith({}));
    expect(keys.publicKey).toBe(DEVELOPMENT_VAPID_PUBLIC_KEY);
    expect(keys.subject).toBe(env.VAPID_SUBJECT);
    expect(fromBase64url(keys.privateKey)).toHaveLength(32);
  });

  it("locally with nothing set at all, still the development pair and subject", async () => {
    const keys = await vapidKeys(contextWith({ VAPID_PUBLIC_KEY: "", VAPID_SUBJECT: "" }));
    expect(keys.publicKey).toBe(DEVELOPMENT_VAPID_PUBLIC_KEY);
    expect(keys.subject).toMatch(/^mailto:/);
  });

  it("`wrangler dev` on this machine is local work too; a top-level configuration deployed by mistake is not", async () => {
    await expect(vapidKeys(contextWith({ ENVIRONMENT: "development" }, true))).resolves.toMatchObject({
      publicKey: DEVELOPMENT_VAPID_PUBLIC_KEY,
    });
    const deployed = await refusal(contextWith({ ENVIRONMENT: "development" }, false));
    expect(deployed).toMatchObject({ code: "unavailable", details: { setting: "VAPID_PUBLIC_KEY" } });
  });

  it("in production, a pair of its own and a subject: used as set", async () => {
    const pair = await keyPair();
    const ctx = contextWith({
      ENVIRONMENT: "production",
      VAPID_PUBLIC_KEY: pair.publicKey,
      VAPID_PRIVATE_KEY: pair.privateKey,
      VAPID_SUBJECT: "https://example.com/contact",
    });
    expect(await vapidKeys(ctx)).toEqual({
      publicKey: pair.publicKey,
      privateKey: pair.privateKey,
      subject: "https://example.com/contact",
    });
  });

  it.each<[string, Partial<Env>, string, RegExp]>([
    ["no public key", { VAPID_PUBLIC_KEY: "" }, "VAPID_PUBLIC_KEY", /set VAPID_PUBLIC_KEY/],
    [
      "the development public key",
      { VAPID_PUBLIC_KEY: DEVELOPMENT_VAPID_PUBLIC_KEY },
      "VAPID_PUBLIC_KEY",
      /development/,
    ],
    ["a public key that is no point", { VAPID_PUBLIC_KEY: "BAAA" }, "VAPID_PUBLIC_KEY", /P-256 public key/],
    ["no private key", { VAPID_PRIVATE_KEY: "" }, "VAPID_PRIVATE_KEY", /wrangler secret put VAPID_PRIVATE_KEY/],
    ["a private key of the wrong size", { VAPID_PRIVATE_KEY: "x".repeat(44) }, "VAPID_PRIVATE_KEY", /32-byte/],
    ["no subject", { VAPID_SUBJECT: "" }, "VAPID_SUBJECT", /set VAPID_SUBJECT/],
    ["a subject that is a bare address", { VAPID_SUBJECT: "ops@example.com" }, "VAPID_SUBJECT", /mailto: or https:/],
    ["an http subject", { VAPID_SUBJECT: "http://example.com" }, "VAPID_SUBJECT", /mailto: or https:/],
  ])("in production, %s is a 503 naming the setting", async (_case, overrides, setting, message) => {
    const error = await refusal(await production(overrides));
    expect(error).toMatchObject({ code: "unavailable", status: 503, details: { setting } });
    expect(error.message).toMatch(/^Web Push (is|notifications are) not configured on this server/);
    expect(error.message).toMatch(message);
  });

  it("in production, the development private key is refused even with its own public key set elsewhere", async () => {
    const local = await vapidKeys(contextWith({}));
    const error = await refusal(await production({ VAPID_PRIVATE_KEY: local.privateKey }));
    expect(error.details.setting).toBe("VAPID_PRIVATE_KEY");
  });

  it("keys of two different pairs are refused, even locally: every push would be refused", async () => {
    const [one, two] = [await keyPair(), await keyPair()];
    const mixed = await refusal(
      await production({ VAPID_PUBLIC_KEY: one.publicKey, VAPID_PRIVATE_KEY: two.privateKey }),
    );
    expect(mixed).toMatchObject({ details: { setting: "VAPID_PRIVATE_KEY" } });
    expect(mixed.message).toMatch(/not the private key of VAPID_PUBLIC_KEY/);
    const locally = await refusal(contextWith({ VAPID_PRIVATE_KEY: two.privateKey }));
    expect(locally.details.setting).toBe("VAPID_PRIVATE_KEY");
  });

  it("the refusal never quotes the private key", async () => {
    const [one, two] = [await keyPair(), await keyPair()];
    const error = await refusal(
      await production({ VAPID_PUBLIC_KEY: one.publicKey, VAPID_PRIVATE_KEY: two.privateKey }),
    );
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain(two.privateKey);
  });
});
