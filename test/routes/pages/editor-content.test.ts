import { describe, expect, it } from "vitest";
import { type ApiResponse, api, createUser, type TestUser } from "../../helpers/api";
import { expectErrorBody } from "../../helpers/auth-matrix";
import { BLOCKS, type Block, createBlock, getBlock, listBlocks, storedRow, uniqueWord } from "../../helpers/blocks";
import { createDatabase } from "../../helpers/databases";
import {
  countOwnedBlocks,
  createPage,
  getPage,
  listPages,
  postPage,
  putPage,
  storedContent,
} from "../../helpers/pages";

interface ContentIssue {
  path: string;
  code: string;
  message: string;
  suggested_type?: string;
  allowed_types?: string[];
}

const issuesOf = (res: ApiResponse): ContentIssue[] =>
  (res.body as { details?: { issues?: ContentIssue[] } }).details?.issues ?? [];

const paragraph = (text: string) => ({ type: "paragraph", children: [{ text }] });

/** Editor-library names clients send by habit, and the canonical type each stands for. */
const EDITOR_LIBRARY_NAMES = [
  ["text", "paragraph"],
  ["heading", "heading-1"],
  ["bulletListItem", "bulleted-list"],
  ["bulleted_list_item", "bulleted-list"],
  ["orderedListItem", "numbered-list"],
  ["todo", "to_do"],
  ["checkbox", "to_do"],
] as const;

/** A body whose second item uses `type`: the 400 must point at content[1].type. */
const bodyWith = (type: string) => [paragraph("fine"), { type, children: [{ text: "wrong" }] }];

function expectEditorLibraryRefusal(res: ApiResponse, canonical: string) {
  expectErrorBody(res, 400);
  expect(issuesOf(res)).toContainEqual(
    expect.objectContaining({ path: "content[1].type", code: "editor_library_type", suggested_type: canonical }),
  );
  expect((res.body as { error: string }).error).toContain("content[1].type");
}

/** A page with a known body, and a snapshot of it as stored. */
async function existingPage(user: TestUser) {
  const page = await createPage(user, { title: "Existing", content: [paragraph("original body")] });
  return { page, before: await storedRow(page.id) };
}

describe.each(EDITOR_LIBRARY_NAMES)("editor-library type %j (use %j)", (name, canonical) => {
  it("POST /api/v1/pages refuses it (400 naming the path and the canonical type), storing nothing", async () => {
    const user = await createUser();
    const res = await postPage(user, { title: "Bad body", content: bodyWith(name) });
    expectEditorLibraryRefusal(res, canonical);
    expect(await countOwnedBlocks(user.id)).toBe(0);
  });

  it("POST /api/v1/pages refuses it in a database row's body, storing nothing", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const owned = await countOwnedBlocks(user.id);
    const res = await postPage(user, { type: "database_row", database_id: database.id, content: bodyWith(name) });
    expectEditorLibraryRefusal(res, canonical);
    expect(await countOwnedBlocks(user.id)).toBe(owned);
  });

  it("PUT /api/v1/pages/{id} refuses it, leaving the page unchanged", async () => {
    const user = await createUser();
    const { page, before } = await existingPage(user);
    expectEditorLibraryRefusal(await putPage(user, page.id, { content: bodyWith(name) }), canonical);
    expect(await storedRow(page.id)).toEqual(before);
  });

  it("POST /api/v1/blocks refuses it for a page, storing nothing", async () => {
    const user = await createUser();
    const res = await api(BLOCKS, { method: "POST", auth: user, body: { type: "page", content: bodyWith(name) } });
    expectEditorLibraryRefusal(res, canonical);
    expect(await countOwnedBlocks(user.id)).toBe(0);
  });

  it("PATCH /api/v1/blocks/{id} refuses it for a page, leaving it unchanged", async () => {
    const user = await createUser();
    const { page, before } = await existingPage(user);
    const res = await api(`${BLOCKS}/${page.id}`, { method: "PATCH", auth: user, body: { content: bodyWith(name) } });
    expectEditorLibraryRefusal(res, canonical);
    expect(await storedRow(page.id)).toEqual(before);
  });
});

describe("editor content: other refusals", () => {
  it.each([
    [2, "heading-2"],
    [3, "heading-3"],
    ["2", "heading-2"],
  ])("suggests the heading type for level %j: %s", async (level, canonical) => {
    const user = await createUser();
    const res = await postPage(user, { content: [{ type: "heading", level, children: [{ text: "H" }] }] });
    expectErrorBody(res, 400);
    expect(issuesOf(res)).toContainEqual(
      expect.objectContaining({ path: "content[0].type", suggested_type: canonical }),
    );
    expect(await countOwnedBlocks(user.id)).toBe(0);
  });

  it("refuses an image without a url (400 at content[0].url) through pages POST, storing nothing", async () => {
    const user = await createUser();
    const res = await postPage(user, { title: "Pic", content: [{ type: "image", children: [{ text: "" }] }] });
    expectErrorBody(res, 400);
    expect(issuesOf(res)).toContainEqual(expect.objectContaining({ path: "content[0].url", code: "missing_url" }));
    expect(await countOwnedBlocks(user.id)).toBe(0);
  });

  it("refuses an image whose url is given as src, saying so", async () => {
    const user = await createUser();
    const res = await postPage(user, { content: [{ type: "image", src: "https://x.test/a.png" }] });
    expectErrorBody(res, 400);
    const issue = issuesOf(res).find((i) => i.path === "content[0].url");
    expect(issue?.message).toContain('"src"');
  });

  it("refuses an image without a url through pages PUT and blocks POST/PATCH, changing nothing", async () => {
    const user = await createUser();
    const { page, before } = await existingPage(user);
    const image = [{ type: "image", children: [{ text: "" }] }];
    const owned = await countOwnedBlocks(user.id);

    const responses = [
      await putPage(user, page.id, { content: image }),
      await api(BLOCKS, { method: "POST", auth: user, body: { type: "page", content: image } }),
      await api(`${BLOCKS}/${page.id}`, { method: "PATCH", auth: user, body: { content: image } }),
    ];
    for (const res of responses) {
      expectErrorBody(res, 400);
      expect(issuesOf(res).map((i) => i.path)).toContain("content[0].url");
    }
    expect(await storedRow(page.id)).toEqual(before);
    expect(await countOwnedBlocks(user.id)).toBe(owned);
  });

  it("stores an image with a top-level url and empty caption", async () => {
    const user = await createUser();
    const image = { type: "image", url: "https://x.test/a.png", children: [{ text: "" }] };
    const page = await createPage(user, { title: "Pic", content: [image] });
    expect(page.content).toEqual([image]);
    expect(await storedContent(page.id)).toEqual([image]);
  });

  it("refuses an unknown type with the list of canonical types", async () => {
    const user = await createUser();
    const res = await postPage(user, { content: [{ type: "banana" }] });
    expectErrorBody(res, 400);
    const issue = issuesOf(res).find((i) => i.path === "content[0].type");
    expect(issue).toMatchObject({ code: "unknown_type" });
    expect(issue?.allowed_types).toContain("paragraph");
    expect(issue?.allowed_types).toContain("bulleted-list");
  });

  it("names nested paths inside a toggle and reports every bad item", async () => {
    const user = await createUser();
    const res = await postPage(user, {
      content: [
        { type: "toggle", children: [{ text: "More" }], content: [paragraph("ok"), { type: "todo" }] },
        { type: "bulletListItem" },
      ],
    });
    expectErrorBody(res, 400);
    expect(issuesOf(res).map((i) => i.path)).toEqual(["content[0].content[1].type", "content[1].type"]);
    expect(await countOwnedBlocks(user.id)).toBe(0);
  });

  it("refuses metadata on an item (row values belong in properties)", async () => {
    const user = await createUser();
    const res = await postPage(user, { content: [{ ...paragraph("x"), metadata: { status: "Done" } }] });
    expectErrorBody(res, 400);
    expect(issuesOf(res).map((i) => i.path)).toContain("content[0].metadata");
  });

  it("keeps free-form content on editor blocks created under a page", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Holder" });
    const block = await createBlock(user, { parent_id: page.id, content: [{ text: "span" }, { type: "text" }] });
    expect((await getBlock(user, block.id)).body.content).toEqual([{ text: "span" }, { type: "text" }]);
  });

  it("accepts canonical content through blocks POST and PATCH of a page", async () => {
    const user = await createUser();
    const created = await api<Block>(BLOCKS, {
      method: "POST",
      auth: user,
      body: {
        type: "page",
        properties: { title: "Via blocks" },
        content: [{ type: "to_do", children: [{ text: "a" }] }],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.content).toEqual([{ type: "to_do", children: [{ text: "a" }], checked: false }]);
    const patched = await api<Block>(`${BLOCKS}/${created.body.id}`, {
      method: "PATCH",
      auth: user,
      body: { content: [{ type: "numbered-list", children: [{ text: "n" }], indent: 1 }] },
    });
    expect(patched.status).toBe(200);
    expect(await storedContent(created.body.id)).toEqual([
      { type: "numbered-list", children: [{ text: "n" }], indent: 1 },
    ]);
    expect((await getPage(user, created.body.id)).body.content).toEqual(patched.body.content);
  });
});

/** Links no export would link, each as written and how a write refuses it. */
const UNSAFE_LINKS = [
  "javascript:alert(1)",
  "JavaScript:alert(1)",
  "java\tscript:alert(1)",
  "data:text/html,hi",
  "file:///etc/passwd",
  "vbscript:x",
  "mention:nothing",
];
const SAFE_LINKS = [
  "https://example.com/a?b=c",
  "http://example.com",
  "mailto:a@example.com",
  "tel:+15550100",
  "/relative/path",
  "#anchor",
  "page.html",
];

const linked = (link: string) => [paragraph("fine"), { type: "paragraph", children: [{ text: "x", link }] }];

function expectUnsafeLink(res: ApiResponse, path: string, source = "content") {
  expectErrorBody(res, 400);
  expect(issuesOf(res)).toContainEqual(expect.objectContaining({ path, code: "unsafe_link" }));
  expect((res.body as { details?: { source?: string } }).details?.source).toBe(source);
}

describe("editor content: links are http(s), mailto, tel, without a scheme, or mentions", () => {
  it.each(UNSAFE_LINKS)(
    "content_markdown with a link to %j is refused (400 naming it), storing nothing",
    async (link) => {
      const user = await createUser();
      const res = await postPage(user, { title: "Md", content_markdown: `fine\n\n[x](<${link}>)` });
      expectUnsafeLink(res, "content[1].children[0].link", "content_markdown");
      expect(await countOwnedBlocks(user.id)).toBe(0);
    },
  );

  it("content_markdown of the issue: [x](javascript:alert(1)) through POST and PUT, changing nothing", async () => {
    const user = await createUser();
    const markdown = "[x](javascript:alert(1))";
    expectUnsafeLink(
      await postPage(user, { content_markdown: markdown }),
      "content[0].children[0].link",
      "content_markdown",
    );
    expect(await countOwnedBlocks(user.id)).toBe(0);
    const { page, before } = await existingPage(user);
    const res = await putPage(user, page.id, { content_markdown: markdown });
    expectUnsafeLink(res, "content[0].children[0].link", "content_markdown");
    expect((res.body as unknown as { error: string }).error).toContain("content_markdown");
    expect(await storedRow(page.id)).toEqual(before);
  });

  it("an HTML link in content_markdown is held to the same rule", async () => {
    const user = await createUser();
    const res = await postPage(user, { content_markdown: 'a <a href="javascript:alert(1)">b</a>' });
    expectUnsafeLink(res, "content[0].children[1].link", "content_markdown");
  });

  it.each(UNSAFE_LINKS)(
    "JSON content with a link to %j is refused by every body write, changing nothing",
    async (link) => {
      const user = await createUser();
      const { page, before } = await existingPage(user);
      const database = await createDatabase(user, { properties: [] });
      const owned = await countOwnedBlocks(user.id);
      const body = linked(link);
      const responses = [
        await postPage(user, { title: "Page", content: body }),
        await postPage(user, { type: "database_row", database_id: database.id, content: body }),
        await putPage(user, page.id, { content: body }),
        await api(BLOCKS, { method: "POST", auth: user, body: { type: "page", content: body } }),
        await api(`${BLOCKS}/${page.id}`, { method: "PATCH", auth: user, body: { content: body } }),
        await api(`/api/v1/databases/${database.id}/rows/batch`, {
          method: "POST",
          auth: user,
          body: { rows: [{ title: "ok" }, { title: "bad", content: body }] },
        }),
      ];
      for (const res of responses.slice(0, -1)) expectUnsafeLink(res, "content[1].children[0].link");
      const batch = responses.at(-1) as ApiResponse;
      expectErrorBody(batch, 400);
      expect((batch.body as { details: { rows: unknown[] } }).details.rows).toEqual([
        expect.objectContaining({
          index: 1,
          issues: [expect.objectContaining({ path: "content[1].children[0].link", code: "unsafe_link" })],
        }),
      ]);
      expect(await storedRow(page.id)).toEqual(before);
      expect(await countOwnedBlocks(user.id)).toBe(owned);
    },
  );

  it("finds links inside toggles and media urls, listing every one", async () => {
    const user = await createUser();
    const res = await postPage(user, {
      content: [
        {
          type: "toggle",
          children: [{ text: "t" }],
          content: [{ type: "quote", children: [{ text: "q", link: "javascript:1" }] }],
        },
        { type: "image", url: "javascript:alert(1)", children: [{ text: "" }] },
        { type: "image", url: "data:text/html,<script>alert(1)</script>", children: [{ text: "" }] },
        { type: "embed", url: "data:image/png;base64,AAAA", children: [{ text: "" }] },
      ],
    });
    expectErrorBody(res, 400);
    expect(issuesOf(res).map((issue) => [issue.path, issue.code])).toEqual([
      ["content[0].content[0].children[0].link", "unsafe_link"],
      ["content[1].url", "unsafe_link"],
      ["content[2].url", "unsafe_link"],
      ["content[3].url", "unsafe_link"],
    ]);
    expect(await countOwnedBlocks(user.id)).toBe(0);
  });

  it("refuses an editor block's free-form content holding such a link, and keeps mention links there", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Parent" });
    const refused = await api(BLOCKS, {
      method: "POST",
      auth: user,
      body: { type: "paragraph", parent_id: page.id, content: [{ text: "x", link: "javascript:alert(1)" }] },
    });
    expectUnsafeLink(refused, "content[0].link");
    const spans = [
      { text: "m", link: "mention:page:p2" },
      { text: "w", link: "https://example.com" },
    ];
    const block = await createBlock(user, { parent_id: page.id, content: spans });
    expect(block.content).toEqual(spans);
    const patched = await api(`${BLOCKS}/${block.id}`, {
      method: "PATCH",
      auth: user,
      body: { content: { nested: [{ text: "y", link: "vbscript:x" }] } },
    });
    expectUnsafeLink(patched, "content.nested[0].link");
    expect((await storedRow(block.id))?.content).toBe(JSON.stringify(spans));
  });

  it("refuses unsafe href, src and url values on items, spans and editor blocks' content, storing nothing", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Parent" });
    const owned = await countOwnedBlocks(user.id);
    const onItem = await postPage(user, {
      content: [{ type: "paragraph", href: "javascript:alert(1)", children: [{ text: "x" }] }],
    });
    expectUnsafeLink(onItem, "content[0].href");
    const onSpan = await postPage(user, {
      content: [{ type: "quote", children: [{ text: "x", src: "data:text/html,<script>alert(1)</script>" }] }],
    });
    expectUnsafeLink(onSpan, "content[0].children[0].src");
    const inToggle = await postPage(user, {
      content: [
        {
          type: "toggle",
          children: [{ text: "t" }],
          content: [{ type: "paragraph", url: "vbscript:x", children: [] }],
        },
      ],
    });
    expectUnsafeLink(inToggle, "content[0].content[0].url");
    const editorBlock = await api(BLOCKS, {
      method: "POST",
      auth: user,
      body: { type: "paragraph", parent_id: page.id, content: { props: { href: "javascript:alert(1)" } } },
    });
    expectUnsafeLink(editorBlock, "content.props.href");
    expect(await countOwnedBlocks(user.id)).toBe(owned);
  });

  it("refuses an SVG image as inline data (it runs scripts), from JSON and from markdown; other images stay", async () => {
    const user = await createUser();
    const svg = "data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+";
    expectUnsafeLink(
      await postPage(user, { content: [{ type: "image", url: svg, children: [{ text: "" }] }] }),
      "content[0].url",
    );
    expectUnsafeLink(await postPage(user, { content_markdown: `![x](${svg})` }), "content[0].url", "content_markdown");
    const page = await createPage(user, { title: "Parent" });
    expectUnsafeLink(
      await api(BLOCKS, {
        method: "POST",
        auth: user,
        body: { type: "image", parent_id: page.id, content: { url: svg } },
      }),
      "content.url",
    );
    const png = "data:image/png;base64,AAAA";
    const image = await createBlock(user, { type: "image", parent_id: page.id, content: { url: png } });
    expect(image.content).toEqual({ url: png });
  });

  it("an editor media block's properties.url (its exported source) follows the rule; page properties are free-form", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Parent" });
    const refused = await api(BLOCKS, {
      method: "POST",
      auth: user,
      body: { type: "image", parent_id: page.id, properties: { url: "data:image/svg+xml,<svg/>" } },
    });
    expectUnsafeLink(refused, "properties.url", "properties");
    const image = await createBlock(user, { type: "image", parent_id: page.id, properties: { url: "/a.png" } });
    const patched = await api(`${BLOCKS}/${image.id}`, {
      method: "PATCH",
      auth: user,
      body: { properties: { url: "javascript:alert(1)" } },
    });
    expectUnsafeLink(patched, "properties.url", "properties");
    // A page's cover, icon or url property is the client's own value: stored as given.
    const free = { cover: "javascript:void(0)", icon: "data:image/svg+xml,<svg/>", url: "file:///x" };
    const stored = await createPage(user, { title: "Free", properties: free });
    expect(stored.properties).toMatchObject(free);
  });

  it.each(SAFE_LINKS)("stores a link to %j as written, from JSON and from markdown", async (link) => {
    const user = await createUser();
    const page = await createPage(user, { content: linked(link) });
    expect(await storedContent(page.id)).toEqual([
      paragraph("fine"),
      { type: "paragraph", children: [{ text: "x", link }] },
    ]);
    const fromMarkdown = await createPage(user, { content_markdown: `[x](<${link}>)` });
    expect(await storedContent(fromMarkdown.id)).toEqual([{ type: "paragraph", children: [{ text: "x", link }] }]);
  });

  it("stores a mention link as the mention and inline media data of its kind", async () => {
    const user = await createUser();
    const image = { type: "image", url: "data:image/png;base64,AAAA", children: [{ text: "" }] };
    const page = await createPage(user, {
      content: [{ type: "paragraph", children: [{ text: "@T", link: "mention:page:p1" }] }, image],
    });
    expect(await storedContent(page.id)).toEqual([
      { type: "paragraph", children: [{ text: "@T", mention: { type: "page", id: "p1" } }] },
      image,
    ]);
  });
});

describe("editor content: search", () => {
  it("finds a page by its body text through GET /api/v1/blocks?q= and GET /api/v1/pages?q=", async () => {
    const user = await createUser();
    const word = uniqueWord();
    const page = await createPage(user, {
      title: "Searchable",
      content: [paragraph("intro"), { type: "bulleted-list", children: [{ text: `item with ${word}` }] }],
    });
    expect((await listBlocks(user, `q=${word}`)).body.map((b) => b.id)).toEqual([page.id]);
    expect((await listPages(user, `q=${word}`)).body.map((p) => p.id)).toEqual([page.id]);
  });

  it("follows a body replaced with PUT: the old text is no longer found, the new one is", async () => {
    const user = await createUser();
    const [oldWord, newWord] = [uniqueWord(), uniqueWord()];
    const page = await createPage(user, { title: "Changing", content: [paragraph(oldWord)] });
    await putPage(user, page.id, { content: [{ type: "quote", children: [{ text: newWord }] }] });
    expect((await listBlocks(user, `q=${oldWord}`)).body).toEqual([]);
    expect((await listPages(user, `q=${oldWord}`)).body).toEqual([]);
    expect((await listBlocks(user, `q=${newWord}`)).body.map((b) => b.id)).toEqual([page.id]);
    expect((await listPages(user, `q=${newWord}`)).body.map((p) => p.id)).toEqual([page.id]);
  });

  it("finds a page created from content_markdown by its text", async () => {
    const user = await createUser();
    const word = uniqueWord();
    const page = await createPage(user, { title: "Md", content_markdown: `# Heading\n\nbody ${word}` });
    expect((await listPages(user, `q=${word}`)).body.map((p) => p.id)).toEqual([page.id]);
  });
});
