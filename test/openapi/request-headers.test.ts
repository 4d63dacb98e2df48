import { env } from "cloudflare:workers";
import { createRoute, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { assembleApp } from "../../src/app-frame";
import { ROUTE_GROUPS } from "../../src/lazy-app";
import { createRouter, headersCanFail } from "../../src/openapi/define-route";

// A router validates a route's request headers only when their schema can refuse a request
// (define-route.ts): every header this service declares is an optional string, which no header
// value fails, so no route pays for copying every header into an object. The contract still
// describes each of them.

const optionalText = z.string().optional();

describe("headersCanFail", () => {
  it("is false for optional strings without checks, however described", () => {
    expect(headersCanFail(z.object({ "If-Match": optionalText }))).toBe(false);
    expect(headersCanFail(z.object({ Range: z.string().optional().openapi({ description: "A range" }) }))).toBe(false);
    expect(headersCanFail(z.object({}))).toBe(false);
  });

  it("is true for a required header, a checked string, another type, or a schema it cannot read", () => {
    expect(headersCanFail(z.object({ "X-Id": z.string() }))).toBe(true);
    expect(headersCanFail(z.object({ "X-Id": z.string().max(8).optional() }))).toBe(true);
    expect(headersCanFail(z.object({ "X-Id": z.string().regex(/^a/).optional() }))).toBe(true);
    expect(headersCanFail(z.object({ "X-Count": z.coerce.number().optional() }))).toBe(true);
    expect(headersCanFail(z.object({ "X-Kind": z.enum(["a", "b"]).optional() }))).toBe(true);
    expect(headersCanFail(z.string())).toBe(true);
  });

  it("is true for a refinement of one header or of them all, or a rule for headers not named", () => {
    expect(
      headersCanFail(
        z.object({
          "X-Id": z
            .string()
            .optional()
            .refine((v) => v !== "x"),
        }),
      ),
    ).toBe(true);
    expect(headersCanFail(z.object({ "X-Id": optionalText }).refine((h) => h["X-Id"] !== "x"))).toBe(true);
    expect(headersCanFail(z.object({ "X-Id": optionalText }).strict())).toBe(true);
    expect(headersCanFail(z.object({ "X-Id": optionalText }).catchall(z.number()))).toBe(true);
    expect(headersCanFail(z.object({ "X-Id": optionalText }).extend({ "X-Other": optionalText }))).toBe(false);
  });

  it("holds for every route this service serves: none of them validates its headers", async () => {
    const routers = await Promise.all(ROUTE_GROUPS.map((group) => group.load()));
    const routes = routers.flatMap((router) => router.openAPIRegistry.definitions).filter((d) => d.type === "route");
    expect(routes.length).toBeGreaterThan(100);
    const failing = routes.filter((d) => headersCanFail(d.route.request?.headers));
    // payments' webhook declares `stripe-signature`, an optional string: nothing here either.
    expect(failing.map((d) => `${d.route.method} ${d.route.path}`)).toEqual([]);
  });
});

describe("a router's routes with request headers", () => {
  const described = (headers: z.ZodObject) =>
    createRoute({
      method: "get",
      path: "/thing",
      request: { headers },
      responses: { 200: { description: "The thing" } },
    });

  it("answers whatever the optional headers hold, and describes them in the contract", async () => {
    const router = createRouter();
    router.openapi(described(z.object({ "X-Note": optionalText })), (c) =>
      c.json({ note: c.req.header("X-Note") ?? null }, 200),
    );
    const response = await router.request("/thing", { headers: { "X-Note": "anything at all" } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ note: "anything at all" });
    const [definition] = router.openAPIRegistry.definitions;
    expect(definition?.type === "route" && definition.route.request?.headers).toBeInstanceOf(z.ZodObject);
    expect(
      router.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "1" } }).paths?.["/thing"]?.get
        ?.parameters,
    ).toEqual([expect.objectContaining({ name: "X-Note", in: "header", required: false })]);
  });

  it("still refuses a header that fails a schema that can fail", async () => {
    const router = createRouter();
    router.openapi(described(z.object({ "X-Id": z.string().max(3) })), (c) => c.json({}, 200));
    // With the app's error envelope, as every router is served.
    const app = assembleApp([router]);
    const refused = await app.request("/thing", { headers: { "X-Id": "abcdef" } }, env);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: "validation_failed" });
    expect((await app.request("/thing", {}, env)).status).toBe(400);
    expect((await app.request("/thing", { headers: { "X-Id": "abc" } }, env)).status).toBe(200);
  });
});
