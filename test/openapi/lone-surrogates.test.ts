import { describe, expect, it } from "vitest";
import { loneSurrogatePath, mayHoldLoneSurrogate } from "../../src/lib/lone-surrogates";
import { type ApiResponse, api, createUser, type TestUser } from "../helpers/api";
import { BLOCKS, createBlock, getBlock, issuePaths } from "../helpers/blocks";
import { postMcp } from "../helpers/mcp";
import { MEDIA, uploadMedia } from "../helpers/media";
import { countOwnedBlocks, createPage, PAGES } from "../helpers/pages";

/**
 * A lone UTF-16 surrogate is no character: stored in a block it came back as a `\udXXX` escape that
 * strict JSON parsers refuse, breaking every answer that held it. Any JSON body holding one, in a
 * string or a key, at any depth, is a 400 naming where; well-formed pairs (emoji) pass.
 */

/** The answer holds no lone surrogate: a strict parser can read it. */
const readableByStrictParsers = (body: unknown) => expect(loneSurrogatePath(body)).toBeUndefined();

describe("a JSON body holding a lone surrogate", () => {
  it.each([
    ["a paragraph's text", '{"type":"paragraph","properties":{"text":"a\\ud800b"}}', "properties.text"],
    ["a low surrogate alone", '{"type":"paragraph","properties":{"text":"\\uDC00"}}', "properties.text"],
    [
      "a high surrogate before another high one",
      '{"type":"paragraph","properties":{"t":"\\ud800\\ud83d"}}',
      "properties.t",
    ],
    [
      "content, deep in its arrays",
      '{"type":"paragraph","content":{"rich_text":[{"type":"text","text":"x\\udfff"}]}}',
      "content.rich_text.0.text",
    ],
  ])("is refused in %s when a block is created, with its path; nothing stored", async (_case, body, path) => {
    const user = await createUser();
    const res = await api(BLOCKS, { method: "POST", auth: user, body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_failed", details: { source: "request body" } });
    expect(issuePaths(res.body)).toEqual([path]);
    expect(await countOwnedBlocks(user.id)).toBe(0);
  });

  it("is refused in a page's title and content (the probe's request)", async () => {
    const user = await createUser();
    const res = await api(PAGES, {
      method: "POST",
      auth: user,
      body: '{"title":"x\\ud800y","content":[{"type":"paragraph","children":[{"text":"a\\udc00b"}]}]}',
    });
    expect(res.status).toBe(400);
    expect(issuePaths(res.body)).toHaveLength(1);
    expect(await countOwnedBlocks(user.id)).toBe(0);
  });

  it("is refused as a key, named with U+FFFD so the answer stays readable; nothing written", async () => {
    const user = await createUser();
    const block = await createBlock(user, { type: "paragraph", properties: { kept: 1 } });
    const res = await api(`${BLOCKS}/${block.id}`, {
      method: "PATCH",
      auth: user,
      body: '{"properties":{"s\\ud800":"x"}}',
    });
    expect(res.status).toBe(400);
    expect(issuePaths(res.body)).toEqual(["properties.s\uFFFD"]);
    readableByStrictParsers(res.body);
    expect((await getBlock(user, block.id)).body.properties).toEqual({ kept: 1 });
  });

  it("is refused before the schema: an unknown key holding one is not echoed back", async () => {
    const user = await createUser();
    const res = await api(BLOCKS, { method: "POST", auth: user, body: '{"type":"paragraph","\\udc00":1}' });
    expect(res.status).toBe(400);
    expect(issuePaths(res.body)).toEqual(["\uFFFD"]);
    readableByStrictParsers(res.body);
  });

  it.each<[string, (user: TestUser) => Promise<ApiResponse>, string]>([
    [
      "an MCP request's arguments",
      (user) =>
        postMcp(
          user,
          '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"\\ud800"}}}',
        ),
      "params.arguments.query",
    ],
    [
      "an upload's multipart metadata",
      (user) => uploadMedia(user, { metadata: '{"album":"\\ud800"}' }),
      "metadata.album",
    ],
    [
      "an upload's JSON metadata",
      (user) =>
        api(`${MEDIA}/upload`, {
          method: "POST",
          auth: user,
          body: `{"content_base64":"${btoa("hello")}","metadata":{"album":"\\udbff"}}`,
        }),
      "metadata.album",
    ],
  ])("is refused in %s too", async (_door, send, path) => {
    const res = await send(await createUser());
    expect(res.status).toBe(400);
    expect(issuePaths(res.body)).toEqual([path]);
  });

  it("is looked at after the credential: without one, a 401", async () => {
    const res = await api(BLOCKS, { method: "POST", body: '{"type":"paragraph","properties":{"text":"\\ud800"}}' });
    expect(res.status).toBe(401);
  });
});

describe("well-formed text passes, escaped or not", () => {
  it("an emoji as an escaped pair, as itself, and text that merely looks like an escape are stored and read back", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Emoji" });
    const res = await api<{ id: string }>(BLOCKS, {
      method: "POST",
      auth: user,
      body: `{"type":"paragraph","parent_id":"${page.id}","properties":{"text":"\\ud83d\\ude00 \u{1f600}","\\uD83D\\uDE00":"key","path":"C:\\\\udemy"}}`,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { body } = await getBlock(user, res.body.id);
    expect(body.properties).toEqual({ text: "\u{1f600} \u{1f600}", "\u{1f600}": "key", path: "C:\\udemy" });
  });
});

describe("mayHoldLoneSurrogate and loneSurrogatePath", () => {
  it("the text test: any surrogate escape in any case; nothing else (decoded UTF-8 holds no lone surrogate)", () => {
    expect(mayHoldLoneSurrogate('{"a":"\\ud800"}')).toBe(true);
    expect(mayHoldLoneSurrogate('{"a":"\\uDBFF"}')).toBe(true);
    expect(new TextDecoder().decode(new TextEncoder().encode('{"a":"\ud800"}'))).toBe('{"a":"\ufffd"}');
    expect(mayHoldLoneSurrogate('{"a":"\\u00e9 \u{1f600} \\ud7ff"}')).toBe(false);
  });

  it("finds one in a string or a key under arrays and objects, and nothing in well-formed values", () => {
    expect(loneSurrogatePath(JSON.parse('{"a":[{"b":"\\ud800"}]}'))).toBe("a.0.b");
    expect(loneSurrogatePath({ "k\udc00": 1 })).toBe("k\udc00");
    expect(loneSurrogatePath("\ud800")).toBe("");
    expect(loneSurrogatePath({ a: ["\u{1f600}", 1, null, { b: "\ud83d\ude00" }] })).toBeUndefined();
    expect(loneSurrogatePath(null)).toBeUndefined();
  });
});
