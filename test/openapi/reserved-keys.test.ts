import { describe, expect, it } from "vitest";
import { mayHoldReservedKey, reservedKeyPath } from "../../src/lib/reserved-keys";
import { api, createUser } from "../helpers/api";
import { BLOCKS, createBlock, getBlock, issuePaths } from "../helpers/blocks";
import { postMcp } from "../helpers/mcp";
import { createMedia, MEDIA, uploadMedia } from "../helpers/media";
import { createPage } from "../helpers/pages";
import { deliver, event, nowSeconds } from "../helpers/payments";

/**
 * `__proto__` cannot be a key of a JavaScript object without becoming its prototype, and the body
 * schemas drop it: a body naming it, at any depth and however it is spelled, is a 400 naming where,
 * never a 200 with that member gone.
 */
/**
 * Whether a 400 names the key: by its path, or, at the top of a strict body, as the key the schema
 * does not know (zod's objects report it so there; its records and loose objects skip it).
 */
const namesReservedKey = (body: unknown): boolean => {
  const issues = (body as { details?: { issues?: { path: string; message: string }[] } }).details?.issues ?? [];
  return issues.some((issue) => issue.path.endsWith("__proto__") || issue.message.includes('"__proto__"'));
};

describe("a JSON body with the key __proto__", () => {
  it("is refused in a block's properties, with the key's path", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Reserved keys" });
    const res = await api(BLOCKS, {
      method: "POST",
      auth: user,
      body: `{"type":"paragraph","parent_id":"${page.id}","properties":{"__proto__":{"x":1},"kept":2}}`,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_failed", details: { source: "request body" } });
    expect(issuePaths(res.body)).toEqual(["properties.__proto__"]);
  });

  it("is refused when spelled with a JSON escape", async () => {
    const user = await createUser();
    const block = await createBlock(user, { type: "paragraph", properties: { kept: 1 } });
    const res = await api(`${BLOCKS}/${block.id}`, {
      method: "PATCH",
      auth: user,
      body: '{"properties":{"\\u005f_proto__":"x"}}',
    });
    expect(res.status).toBe(400);
    expect(issuePaths(res.body)).toEqual(["properties.__proto__"]);
    // Nothing was written.
    expect((await getBlock(user, block.id)).body.properties).toEqual({ kept: 1 });
  });

  it("is refused deep in a block's content, with the path through its arrays", async () => {
    const user = await createUser();
    const res = await api(BLOCKS, {
      method: "POST",
      auth: user,
      body: '{"type":"paragraph","content":{"rich_text":[{"type":"text","text":"a","__proto__":null}]}}',
    });
    expect(res.status).toBe(400);
    expect(issuePaths(res.body)).toEqual(["content.rich_text.0.__proto__"]);
  });

  it("is refused in an MCP request's arguments, as any body the transport cannot read", async () => {
    const user = await createUser();
    const res = await postMcp(
      user,
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"x","__proto__":{}}}}',
    );
    expect(res.status).toBe(400);
    expect(issuePaths(res.body)).toEqual(["params.arguments.__proto__"]);
  });

  it("is no matter as a value, as a key's part or behind escapes of other keys: those are written and read back", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Reserved keys" });
    // The word and an escaped `p` make the body's text worth parsing again; the key is not there.
    const res = await api<{ id: string }>(BLOCKS, {
      method: "POST",
      auth: user,
      body:
        '{"type":"paragraph","parent_id":"' +
        page.id +
        '","properties":{"note":"__proto__","__proto":1,"\\u0070rop":"\\u00e9"},' +
        '"content":{"rich_text":[{"type":"text","text":"__proto__"}]}}',
    });
    expect(res.status).toBe(201);
    const { body } = await getBlock(user, res.body.id);
    expect(body.properties).toEqual({ note: "__proto__", __proto: 1, prop: "\u00e9" });
    expect(body.content).toEqual({ rich_text: [{ type: "text", text: "__proto__" }] });
  });

  it("is refused at the top level of a body, even where the body is optional", async () => {
    const user = await createUser();
    const block = await createBlock(user, { type: "paragraph" });
    // The optional body is read as bytes first (an empty body is no body), then as text.
    const res = await api(`${BLOCKS}/${block.id}/archive`, { method: "POST", auth: user, body: '{"__proto__":{}}' });
    expect(res.status).toBe(400);
    expect(namesReservedKey(res.body)).toBe(true);
    expect((await getBlock(user, block.id)).body.archived).toBe(false);
  });

  it("is refused in an upload's metadata, multipart or JSON, and in a metadata merge patch", async () => {
    const user = await createUser();
    const multipart = await uploadMedia(user, { metadata: '{"album":"Q3","__proto__":{"x":1}}' });
    expect(multipart.status).toBe(400);
    expect(issuePaths(multipart.body)).toEqual(["metadata.__proto__"]);

    const json = await api(`${MEDIA}/upload`, {
      method: "POST",
      auth: user,
      body: `{"content_base64":"${btoa("hello")}","metadata":{"\\u005f_proto__":1}}`,
    });
    expect(json.status).toBe(400);
    expect(issuePaths(json.body)).toEqual(["metadata.__proto__"]);
    const topLevel = await api(`${MEDIA}/upload`, {
      method: "POST",
      auth: user,
      body: `{"content_base64":"${btoa("hello")}","__proto__":1}`,
    });
    expect(topLevel.status).toBe(400);
    expect(namesReservedKey(topLevel.body)).toBe(true);

    const uploaded = await createMedia(user, { metadata: { album: "Q3" } });
    const patch = await api(`${MEDIA}/${uploaded.id}/metadata`, {
      method: "PATCH",
      auth: user,
      headers: { "Content-Type": "application/merge-patch+json" },
      body: '{"__proto__":null}',
    });
    expect(patch.status).toBe(400);
    expect(namesReservedKey(patch.body)).toBe(true);
  });

  it("is not refused in a payment provider's signed event: the event is the sender's, taken as signed", async () => {
    const metadata = JSON.parse('{"__proto__":"kept","note":"x"}') as Record<string, unknown>;
    const res = await deliver(
      event("customer.created", nowSeconds(), { id: "cus_reserved", object: "customer", metadata }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ received: true, handled: false });
  });

  it("is looked at after the credential: without one, a 401", async () => {
    const res = await api(BLOCKS, { method: "POST", body: '{"type":"paragraph","properties":{"__proto__":1}}' });
    expect(res.status).toBe(401);
  });
});

describe("reservedKeyPath", () => {
  it("finds the key under arrays and objects, and not as an array's index or a value", () => {
    expect(reservedKeyPath(JSON.parse('{"a":[{"b":{"__proto__":1}}]}'))).toBe("a.0.b.__proto__");
    expect(reservedKeyPath({ a: ["__proto__"], b: { c: "__proto__" } })).toBeUndefined();
    expect(reservedKeyPath(null)).toBeUndefined();
  });

  it("tells texts that could hold the key, spelled out or escaped, from those that cannot", () => {
    expect(mayHoldReservedKey('{"a":"__proto__"}')).toBe(true);
    expect(mayHoldReservedKey('{"\\u005F_proto__":1}')).toBe(true);
    expect(mayHoldReservedKey('{"__pr\\u006fto__":1}')).toBe(true);
    expect(mayHoldReservedKey('{"\\u00e9t\\u00e9":"\\u00e9"}')).toBe(false);
    expect(mayHoldReservedKey('{"title":"proto"}')).toBe(false);
  });

  it("walks a body nested far deeper than any schema allows without recursion", () => {
    const depth = 100_000;
    const deep = JSON.parse(`${"[".repeat(depth)}{"__proto__":1}${"]".repeat(depth)}`);
    expect(reservedKeyPath(deep)?.endsWith(".0.__proto__")).toBe(true);
  });
});
