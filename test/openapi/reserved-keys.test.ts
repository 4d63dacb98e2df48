import { describe, expect, it } from "vitest";
import { reservedKeyPath } from "../../src/openapi/validation";
import { api, createUser } from "../helpers/api";
import { BLOCKS, createBlock, getBlock, issuePaths } from "../helpers/blocks";
import { postMcp } from "../helpers/mcp";
import { createPage } from "../helpers/pages";

/**
 * `__proto__` cannot be a key of a JavaScript object without becoming its prototype, and the body
 * schemas drop it: a body naming it, at any depth and however it is spelled, is a 400 naming where,
 * never a 200 with that member gone.
 */
describe("a JSON body with the key __proto__", () => {
  it("is refused in a block's properties, with the key's path", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Reserved keys" });
    const res = await api(BLOCKS, {
      method: "POST",
      auth: user,
      body: '{"type":"paragraph","parent_id":"' + page.id + '","properties":{"__proto__":{"x":1},"kept":2}}',
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
    // The escapes make the body's text worth parsing again; the key is not there.
    const res = await api<{ id: string }>(BLOCKS, {
      method: "POST",
      auth: user,
      body:
        '{"type":"paragraph","parent_id":"' +
        page.id +
        '","properties":{"note":"__proto__","__proto":1,"\\u00e9t\\u00e9":"\\u00e9"},' +
        '"content":{"rich_text":[{"type":"text","text":"__proto__"}]}}',
    });
    expect(res.status).toBe(201);
    const { body } = await getBlock(user, res.body.id);
    expect(body.properties).toEqual({ note: "__proto__", __proto: 1, "\u00e9t\u00e9": "\u00e9" });
    expect(body.content).toEqual({ rich_text: [{ type: "text", text: "__proto__" }] });
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

  it("walks a body nested far deeper than any schema allows without recursion", () => {
    const depth = 100_000;
    const deep = JSON.parse(`${"[".repeat(depth)}{"__proto__":1}${"]".repeat(depth)}`);
    expect(reservedKeyPath(deep)?.endsWith(".0.__proto__")).toBe(true);
  });
});
