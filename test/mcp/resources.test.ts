import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { api, createUser } from "../helpers/api";
import { connectMcp } from "../helpers/mcp";
import { createPage } from "../helpers/pages";

// Pages as MCP resources: workspace://page/{id}, read as markdown (the markdown export), listed
// through the URI template.

describe("resources", () => {
  it("offers the page template, and lists the caller's pages through it", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Roadmap" });
    await createPage(await createUser(), { title: "Someone else's" });
    const client = await connectMcp(user);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      expect.objectContaining({ name: "page", uriTemplate: "workspace://page/{id}", mimeType: "text/markdown" }),
    ]);
    const { resources } = await client.listResources();
    expect(resources).toEqual([
      expect.objectContaining({
        uri: `workspace://page/${page.id}`,
        name: "Roadmap",
        title: "Roadmap",
        mimeType: "text/markdown",
      }),
    ]);
    await client.close();
  });

  it("reads a page as its markdown export", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Roadmap", content_markdown: "- Q1: **ship**\n- Q2: grow" });
    const client = await connectMcp(user);
    const uri = `workspace://page/${page.id}`;
    const { contents } = await client.readResource({ uri });
    const exported = await api<string>(`/api/v1/pages/${page.id}/export`, { auth: user });
    expect(contents).toEqual([{ uri, mimeType: "text/markdown", text: exported.body }]);
    expect(exported.body).toContain("# Roadmap");
    await client.close();
  });

  it("another user's page, or none, is resource not found (-32002)", async () => {
    const page = await createPage(await createUser(), { title: "Private" });
    const client = await connectMcp(await createUser());
    for (const id of [page.id, "no-such-page"]) {
      const read = client.readResource({ uri: `workspace://page/${id}` });
      await expect(read).rejects.toBeInstanceOf(McpError);
      await expect(read).rejects.toMatchObject({ code: -32002 });
    }
    await client.close();
  });

  it("a URI of no resource of the server is resource not found (-32002); one that is no URI, or holds a malformed id, invalid params (-32602)", async () => {
    const client = await connectMcp(await createUser());
    for (const uri of ["file:///etc/passwd", "workspace://database/x", "workspace://page/a/b"]) {
      await expect(client.readResource({ uri }), uri).rejects.toMatchObject({ code: -32002 });
    }
    for (const uri of ["not a uri", "workspace://page/%E0%A4%A"]) {
      await expect(client.readResource({ uri }), uri).rejects.toMatchObject({ code: -32602 });
    }
    await client.close();
  });

  it("a database is no markdown resource: an invalid-params error naming its formats", async () => {
    const user = await createUser();
    const database = await createPage(user, { type: "database", title: "Tasks" });
    const client = await connectMcp(user);
    const read = client.readResource({ uri: `workspace://page/${database.id}` });
    await expect(read).rejects.toMatchObject({ code: -32602 });
    await expect(read).rejects.toThrow(/exports as csv or json/);
    await client.close();
  });
});
