import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { makeResolver, type OpenApiDocument, operationsOf } from "../fuzz/openapi";
import { api, createUser } from "../helpers/api";
import { childrenOf, createBlock } from "../helpers/blocks";
import { sessionOf } from "../helpers/cursor-matrix";

/**
 * An empty body means no body, on every route: many clients send `Content-Type:
 * application/json` on every request. Every operation of the contract whose JSON body is
 * optional is called with no body and with empty ones; each answers as it does without a body
 * (here mostly a 404 for an object nobody owns), never a 400 about the body or a 415.
 */
const { body: document } = await api<OpenApiDocument>("/documentation/openapi.json");
const optionalBodies = operationsOf(document).filter(
  (operation) =>
    operation.secured &&
    operation.body &&
    !operation.body.required &&
    operation.body.contentTypes.includes("application/json"),
);

/** A concrete URL for a templated path: every parameter filled with an id nobody owns. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000");

/** Empty bodies as clients send them: each a name, its headers and its (fresh) body. */
const EMPTY_BODIES: [string, Record<string, string>, () => BodyInit | undefined][] = [
  ["Content-Type: application/json, no body", { "Content-Type": "application/json" }, () => undefined],
  ["Content-Type: application/json, zero bytes", { "Content-Type": "application/json" }, () => ""],
  [
    "Content-Type: application/json, Content-Length: 0",
    { "Content-Type": "application/json", "Content-Length": "0" },
    () => "",
  ],
  [
    "Content-Type: application/json; charset=utf-8, zero bytes",
    { "Content-Type": "application/json; charset=utf-8" },
    () => "",
  ],
  [
    "Content-Type: application/json, a stream of zero bytes (no Content-Length)",
    { "Content-Type": "application/json" },
    () => new ReadableStream({ start: (controller) => controller.close() }),
  ],
  ["Content-Type: text/plain, zero bytes", { "Content-Type": "text/plain" }, () => ""],
  // JSON whitespace alone is no JSON value: as empty as no bytes.
  ["Content-Type: application/json, a space", { "Content-Type": "application/json" }, () => " "],
  ["Content-Type: application/json, a newline", { "Content-Type": "application/json" }, () => "\n"],
  ["Content-Type: application/json, CR LF and a tab", { "Content-Type": "application/json" }, () => "\r\n\t"],
  [
    "Content-Type: application/json; charset=utf-8, spaces with their Content-Length",
    { "Content-Type": "application/json; charset=utf-8", "Content-Length": "3" },
    () => "   ",
  ],
  [
    "Content-Type: application/json, a stream of whitespace (no Content-Length)",
    { "Content-Type": "application/json" },
    () =>
      new ReadableStream({
        start: (controller) => {
          controller.enqueue(new TextEncoder().encode(" \n"));
          controller.enqueue(new TextEncoder().encode("\t "));
          controller.close();
        },
      }),
  ],
];
/** The empty bodies that declare JSON: a route whose body is required refuses each (400). */
const EMPTY_JSON_BODIES = EMPTY_BODIES.filter(([name]) => name.startsWith("Content-Type: application/json"));

async function send(method: string, path: string, key: string, headers: Record<string, string>, body?: BodyInit) {
  const response = await SELF.fetch(`http://workspace.test${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, text, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

describe("an empty body is no body, on every operation whose JSON body is optional", () => {
  it("the contract has such operations (duplicate, archive, resolve, cancel, ...)", () => {
    expect(optionalBodies.map((operation) => operation.id)).toEqual(
      expect.arrayContaining(["duplicateBlock", "archiveBlock", "resolveComment", "cancelSubscription"]),
    );
  });

  it.each(optionalBodies.map((operation) => [`${operation.method} ${operation.path}`, operation]))(
    "%s",
    async (_name, operation) => {
      const user = await createUser();
      const url = concrete(operation.path);
      const withoutBody = await send(operation.method, url, user.key, {});
      // Refused for another reason or not at all, never for its body.
      expect(withoutBody.status, withoutBody.text).not.toBe(415);
      expect(withoutBody.body.code, withoutBody.text).not.toBe("malformed_json");
      expect(withoutBody.body.details, withoutBody.text).not.toMatchObject({ source: "request body" });
      for (const [name, headers, body] of EMPTY_BODIES) {
        const res = await send(operation.method, url, user.key, headers, body());
        expect({ status: res.status, code: res.body.code }, `${name}: ${res.text}`).toEqual({
          status: withoutBody.status,
          code: withoutBody.body.code,
        });
      }
    },
  );

  it.each([
    ["an empty body", ""],
    ["a body of JSON whitespace", "\r\n\t "],
  ])("%s takes the body's defaults: archive archives, duplicate copies the children", async (_name, empty) => {
    const user = await createUser();
    const page = await createBlock(user, { type: "page", properties: { title: "Parent" } });
    await createBlock(user, { type: "paragraph", parent_id: page.id });
    const json = { "Content-Type": "application/json" };

    const copy = await send("POST", `/api/v1/blocks/${page.id}/duplicate`, user.key, json, empty);
    expect(copy.status, copy.text).toBe(201);
    expect((await childrenOf(user, String(copy.body.id))).body).toHaveLength(1);

    const archived = await send("POST", `/api/v1/blocks/${page.id}/archive`, user.key, json, empty);
    expect(archived.status, archived.text).toBe(200);
    expect(archived.body.archived).toBe(true);
  });

  it("a body that is required is still a 400 when empty", async () => {
    const user = await createUser();
    const resolve = makeResolver(document);
    const create = operationsOf(document).find((operation) => operation.id === "createBlock");
    expect(create?.body?.required).toBe(true);
    expect(resolve(create?.body?.schema).required).toContain("type");
    for (const [name, headers, body] of EMPTY_JSON_BODIES.slice(1)) {
      const res = await send("POST", "/api/v1/blocks", user.key, headers, body());
      expect(res.status, `${name}: ${res.text}`).toBe(400);
    }
  });

  it("whitespace is no body only as JSON, and a body with a value around it is read", async () => {
    const user = await createUser();
    const page = await createBlock(user, { type: "page", properties: { title: "Parent" } });
    const plain = await send(
      "POST",
      `/api/v1/blocks/${page.id}/archive`,
      user.key,
      { "Content-Type": "text/plain" },
      " ",
    );
    expect(plain.status, plain.text).toBe(415);
    const json = { "Content-Type": "application/json" };
    const unarchived = await send(
      "POST",
      `/api/v1/blocks/${page.id}/archive`,
      user.key,
      json,
      ' {"archived": false}\n',
    );
    expect(unarchived.status, unarchived.text).toBe(200);
    expect(unarchived.body.archived).toBe(false);
    const malformed = await send("POST", `/api/v1/blocks/${page.id}/archive`, user.key, json, " x ");
    expect({ status: malformed.status, code: malformed.body.code }).toEqual({ status: 400, code: "malformed_json" });
  });
});

describe("an optional body is still a body: strict, JSON and limited, on every operation that has one", () => {
  it("the trash, restore, version restore, secret rotation and delivery retry take an optional empty body", () => {
    expect(optionalBodies.map((operation) => operation.id)).toEqual(
      expect.arrayContaining([
        "trashBlock",
        "restoreBlock",
        "restoreBlockVersion",
        "rotateWebhookSecret",
        "retryWebhookDelivery",
      ]),
    );
  });

  it.each(optionalBodies.map((operation) => [`${operation.method} ${operation.path}`, operation]))(
    "%s: an unknown field is a 400, another Content-Type a 415, a body over its limit a 413",
    async (_name, operation) => {
      const user = await createUser();
      // An app session where the operation takes no API key (a key would be a 403 before the body is read).
      const security = document.paths[operation.path]?.[operation.method.toLowerCase()]?.security ?? [];
      const auth = security.some((scheme) => "apiKeyAuth" in scheme) ? user.key : await sessionOf(user);
      // Every path parameter valid (so the body is what is judged), naming nothing the user has.
      const integers = operation.pathParams.filter((parameter) => parameter.schema?.type === "integer");
      const url = concrete(integers.reduce((path, { name }) => path.replace(`{${name}}`, "1"), operation.path));
      const json = { "Content-Type": "application/json" };
      const unknown = await send(operation.method, url, auth, json, '{"bogus": 1}');
      expect({ status: unknown.status, code: unknown.body.code }, unknown.text).toEqual({
        status: 400,
        code: "validation_failed",
      });
      expect(unknown.text).toContain("bogus");
      const plain = await send(operation.method, url, auth, { "Content-Type": "text/plain" }, "{}");
      expect(plain.status, plain.text).toBe(415);
      const large = await send(operation.method, url, auth, json, `{"x": "${"a".repeat(1024 * 1024)}"}`);
      expect(large.status, large.text).toBe(413);
    },
  );

  it("trash and restore without a body or with {} still act: a client that sends nothing keeps working", async () => {
    const user = await createUser();
    const block = await createBlock(user, { type: "paragraph" });
    const trashed = await send("POST", `/api/v1/blocks/${block.id}/trash`, user.key, {});
    expect({ status: trashed.status, in_trash: trashed.body.in_trash }).toEqual({ status: 200, in_trash: true });
    const json = { "Content-Type": "application/json" };
    const restored = await send("POST", `/api/v1/blocks/${block.id}/restore`, user.key, json, "{}");
    expect({ status: restored.status, in_trash: restored.body.in_trash }).toEqual({ status: 200, in_trash: false });
  });
});
