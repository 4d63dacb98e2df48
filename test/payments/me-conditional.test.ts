import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createUser } from "../helpers/api";
import { expectConditionalRead } from "../helpers/conditional";
import { ME, subscribe } from "../helpers/payments";

describe("GET /api/v1/me validators (RFC 9110 §8.8.3, §13.1.2)", () => {
  it("answers a strong ETag; If-None-Match with it is 304; the tag changes with the account and the plan", async () => {
    const user = await createUser();
    const first = await expectConditionalRead(user, ME);
    await env.DB.prepare("UPDATE users SET name = ? WHERE id = ?").bind("Ada", user.id).run();
    const renamed = await api(ME, { auth: user, headers: { "If-None-Match": first } });
    expect(renamed.status).toBe(200);
    const second = renamed.headers.get("ETag");
    expect(second).not.toBe(first);
    await subscribe(user, { lookupKey: "team_yearly" });
    const subscribed = await api(ME, { auth: user, headers: { "If-None-Match": second ?? "" } });
    expect(subscribed.status).toBe(200);
    expect(subscribed.headers.get("ETag")).not.toBe(second);
  });

  it("without credentials it is a 401 whatever the preconditions", async () => {
    expect((await api(ME, { headers: { "If-None-Match": "*" } })).status).toBe(401);
  });
});
