import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DEFAULT_BODY_LIMIT_BYTES as MAX_BODY_BYTES } from "../../src/openapi/define-route";
import { api, createUser } from "../helpers/api";

describe("error envelope", () => {
  it("an unknown route is a 404 {error, details}", async () => {
    const res = await api("/api/v1/nothing-here", { auth: await createUser() });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: "Route not found",
      code: "not_found",
      details: { method: "GET", path: "/api/v1/nothing-here" },
      request_id: expect.any(String),
    });
  });

  it("an unknown open route is a 404 in the same envelope", async () => {
    const res = await api("/no/such/route");
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: "Route not found" });
  });

  it("a wrong method on a known route is a 405 naming the allowed methods", async () => {
    const user = await createUser();
    const res = await api("/api/v1/blocks", { method: "PUT", auth: user, body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("GET, POST");
    expect(res.body).toEqual({
      error: "Method PUT not allowed",
      code: "method_not_allowed",
      details: { allowed: ["GET", "POST"] },
      request_id: expect.any(String),
    });

    const onItem = await api("/api/v1/blocks/some-id/children", { method: "DELETE", auth: user });
    expect(onItem.status).toBe(405);
    expect(onItem.body).toMatchObject({ details: { allowed: ["GET"] } });
  });

  it("malformed JSON is a 400 in the envelope", async () => {
    const res = await api("/api/v1/blocks", { method: "POST", auth: await createUser(), body: '{"type": "page",' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Malformed JSON in request body",
      code: "malformed_json",
      // Where the parser stopped, in its words.
      details: { reason: expect.stringMatching(/JSON/) },
      request_id: expect.any(String),
    });
  });

  it("a body above the size limit is a 413 and nothing is stored", async () => {
    const user = await createUser();
    const huge = { type: "page", properties: { title: "x".repeat(MAX_BODY_BYTES) } };
    const res = await api("/api/v1/blocks", { method: "POST", auth: user, body: huge });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      error: "Request body too large",
      code: "payload_too_large",
      details: { max_bytes: MAX_BODY_BYTES },
      request_id: expect.any(String),
    });
    const list = await api<unknown[]>("/api/v1/blocks", { auth: user });
    expect(list.body).toEqual([]);
  });

  it("a 401 carries a WWW-Authenticate challenge and no details of the key", async () => {
    const res = await api("/api/v1/blocks", { auth: "sr_0123456789abcdefghijklmnopqrstuvwxyzABCDEF" });
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
    expect(res.body).toEqual({ error: "Invalid API key", code: "unauthorized", request_id: expect.any(String) });
  });
});

describe("the 401 challenge (RFC 6750 §3)", () => {
  const challenge = async (authorization?: string) =>
    (await api("/api/v1/blocks", { headers: authorization ? { Authorization: authorization } : {} })).headers.get(
      "WWW-Authenticate",
    );

  it("names a credential that was sent and refused invalid_token", async () => {
    for (const authorization of [
      "Bearer sr_0123456789abcdefghijklmnopqrstuvwxyzABCDEF",
      "sr_0123456789abcdefghijklmnopqrstuvwxyzABCDEF",
      "Bearer sr_short",
      "Bearer eyJhbGciOiJIUzI1NiJ9.e30.x",
    ]) {
      expect(await challenge(authorization), authorization).toBe('Bearer realm="workspace-api", error="invalid_token"');
    }
  });

  it("carries no error code when no bearer credential was sent", async () => {
    for (const authorization of [undefined, "Basic eDp5", "Bearer"]) {
      expect(await challenge(authorization), authorization).toBe('Bearer realm="workspace-api"');
    }
  });
});

describe("paths and refusals at the edges", () => {
  it("a trailing slash names the same route", async () => {
    const user = await createUser();
    const res = await api("/api/v1/blocks/", { auth: user });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Pagination-Limit")).toBe("50");
  });

  it("a body of a type a JSON route does not read is a 415 unsupported_media_type", async () => {
    const res = await api("/api/v1/blocks", {
      method: "POST",
      auth: await createUser(),
      body: "type=page",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ code: "unsupported_media_type" });
  });

  it("a 415 names the Content-Type sent and the ones the operation reads; a PATCH's says them in Accept-Patch", async () => {
    const user = await createUser();
    const form = await api("/api/v1/pages", {
      method: "POST",
      auth: user,
      body: "title=Plan",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    expect(form.body).toEqual({
      error:
        "The body's Content-Type is application/x-www-form-urlencoded; this operation reads application/json (send the body as JSON with that Content-Type)",
      code: "unsupported_media_type",
      details: {
        header: "Content-Type",
        content_type: "application/x-www-form-urlencoded",
        accepted: ["application/json"],
      },
      request_id: expect.any(String),
    });
    expect(form.headers.get("Accept-Patch")).toBeNull();

    const patch = await api("/api/v1/webhooks/some-id", {
      method: "PATCH",
      auth: user,
      body: "{}",
      headers: { "Content-Type": "text/plain" },
    });
    expect(patch.status).toBe(415);
    expect(patch.body).toMatchObject({
      details: { content_type: "text/plain", accepted: ["application/json", "application/merge-patch+json"] },
    });
    expect(patch.headers.get("Accept-Patch")).toBe("application/json, application/merge-patch+json");

    const untyped = await SELF.fetch("http://workspace.test/api/v1/pages", {
      method: "POST",
      headers: { Authorization: `Bearer ${user.key}` },
      body: new TextEncoder().encode('{"title": "Plan"}'),
    });
    expect(untyped.status).toBe(415);
    expect(await untyped.json()).toMatchObject({
      error:
        "The body has no Content-Type; this operation reads application/json (send the body as JSON with that Content-Type)",
      details: { header: "Content-Type", content_type: null, accepted: ["application/json"] },
    });
  });
});
