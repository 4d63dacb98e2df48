import { describe, expect, it } from "vitest";
import { TAGS } from "../../src/openapi/tags";
import { type ApiResponse, api, createUser } from "../helpers/api";
import { createBlock } from "../helpers/blocks";
import { contractOperations } from "../helpers/contract";
import { createMedia, PNG_BYTES } from "../helpers/media";

// What generated clients read from the contract besides paths: tags, the headers of every answer,
// the request headers every operation takes, the AI stream's events, and request bodies whose
// defaulted fields may be left out. (npm run test:client generates a client and runs it.)

type Schema = {
  $ref?: string;
  required?: string[];
  properties?: Record<string, Schema & { default?: unknown }>;
  anyOf?: Schema[];
  items?: Schema;
  contentMediaType?: string;
  contentSchema?: Schema;
};
interface Document {
  info: { license?: { name: string }; contact?: { name: string } };
  tags?: { name: string; description?: string }[];
  components: { schemas: Record<string, Schema>; parameters: Record<string, { name: string; in: string }> };
  paths: Record<string, Record<string, { parameters?: { $ref?: string }[]; requestBody?: unknown }>>;
}

/** What a file's answer says about the file besides its type: how to save it, what it may run, how long to keep it. */
const FILE_HEADERS = ["Content-Disposition", "Content-Security-Policy", "Cache-Control"];

const contract = async () => (await api<Document>("/documentation/openapi.json")).body;

describe("the contract, for generated clients", () => {
  it("lists every tag an operation names, each with a description, and has a license and a contact", async () => {
    const document = await contract();
    const used = new Set(
      (await contractOperations()).flatMap(({ operation }) => (operation as { tags?: string[] }).tags ?? []),
    );
    expect(document.tags).toEqual(TAGS);
    expect([...used].filter((tag) => !TAGS.some(({ name }) => name === tag))).toEqual([]);
    for (const tag of TAGS) expect(tag.description, tag.name).toBeTruthy();
    expect(document.info.license?.name).toBeTruthy();
    expect(document.info.contact?.name).toBeTruthy();
  });

  it("declares X-Request-Id, X-D1-Bookmark and Server-Timing on every response of every operation", async () => {
    for (const { name, operation } of await contractOperations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const header of ["X-Request-Id", "X-D1-Bookmark", "Server-Timing"]) {
          expect(response.headers?.[header], `${name} ${status} ${header}`).toEqual({
            $ref: `#/components/headers/${header}`,
          });
        }
      }
    }
  });

  it("takes X-Request-Id and X-D1-Bookmark on every operation, by reference to one parameter each", async () => {
    const document = await contract();
    expect(document.components.parameters.RequestIdHeader).toMatchObject({ name: "X-Request-Id", in: "header" });
    expect(document.components.parameters.D1BookmarkHeader).toMatchObject({ name: "X-D1-Bookmark", in: "header" });
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        expect(operation.parameters, `${method} ${path}`).toEqual(
          expect.arrayContaining([
            { $ref: "#/components/parameters/RequestIdHeader" },
            { $ref: "#/components/parameters/D1BookmarkHeader" },
          ]),
        );
      }
    }
  });

  it("declares X-Next-Cursor on every listing that takes a cursor", async () => {
    const document = await contract();
    const listings = (await contractOperations()).filter(({ path, method }) => {
      const parameters = (document.paths[path]?.[method]?.parameters ?? []) as { name?: string }[];
      return parameters.some((parameter) => parameter.name === "cursor");
    });
    expect(listings.length).toBeGreaterThan(10);
    for (const { name, operation } of listings)
      expect(operation.responses["200"]?.headers?.["X-Next-Cursor"], name).toBeDefined();
  });

  it("declares the headers a file is sent with on each operation that sends one, as it sends them", async () => {
    const user = await createUser();
    const media = await createMedia(user, { bytes: PNG_BYTES, name: "photo.png", type: "image/png" });
    const page = await createBlock(user, { type: "page", properties: { title: "Export me" } });
    const signed = new URL(media.signedUrl);
    const download = `/api/v1/media/download?url=${encodeURIComponent(media.signedUrl)}`;
    const answers: [string, string, ApiResponse][] = [
      ["GET /api/v1/media/download", "200", await api(download, { auth: user })],
      ["GET /api/v1/media/download", "206", await api(download, { auth: user, headers: { Range: "bytes=0-3" } })],
      [
        "POST /api/v1/media/download",
        "200",
        await api("/api/v1/media/download", {
          method: "POST",
          auth: user,
          body: { bucket: "media", path: media.path },
        }),
      ],
      ["GET /media/signed", "200", await api(`${signed.pathname}${signed.search}`)],
      ["GET /api/v1/pages/export/batch", "200", await api(`/api/v1/pages/export/batch?ids=${page.id}`, { auth: user })],
      [
        "GET /api/v1/pages/{id}/export",
        "200",
        await api(`/api/v1/pages/${page.id}/export?format=html`, { auth: user }),
      ],
    ];
    const operations = new Map((await contractOperations()).map(({ name, operation }) => [name, operation]));
    for (const [name, status, res] of answers) {
      expect(res.status, name).toBe(Number(status));
      const sent = FILE_HEADERS.filter((header) => res.headers.has(header));
      expect(sent, name).toContain("Content-Disposition");
      const declared = Object.keys(operations.get(name)?.responses[status]?.headers ?? {});
      expect(declared, `${name} ${status}`).toEqual(expect.arrayContaining(sent));
    }
  });

  it("declares the AI stream's start, delta, done and error events as schemas its content refers to", async () => {
    const { components } = await contract();
    const stream = components.schemas.AiStreamEvent as { oneOf?: Schema[] };
    expect(stream.oneOf).toEqual(
      ["Start", "Delta", "Done", "Error"].map((name) => ({ $ref: `#/components/schemas/Ai${name}Event` })),
    );
    const { body } = await api<{
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content: Record<string, { schema: Schema }> }> }>
      >;
    }>("/documentation/openapi.json");
    const content = body.paths["/api/v1/ai/{provider}/stream"]?.post?.responses["200"]?.content["text/event-stream"];
    expect(content?.schema).toMatchObject({
      contentMediaType: "text/event-stream",
      contentSchema: { type: "array", items: { $ref: "#/components/schemas/AiStreamEvent" } },
    });
  });

  it("types Block.content as editor items for page-like blocks", async () => {
    const { components } = await contract();
    expect(components.schemas.Block?.properties?.content?.anyOf).toContainEqual({
      type: "array",
      items: { $ref: "#/components/schemas/ContentItem" },
    });
  });

  it("never requires a request field that has a default (the zod schema's input shape)", async () => {
    const { components } = await contract();
    const defaulted = Object.entries(components.schemas).flatMap(([name, schema]) =>
      Object.entries(schema.properties ?? {})
        .filter(([, property]) => property.default !== undefined)
        .map(([field]) => ({ name, field, required: (schema.required ?? []).includes(field) })),
    );
    expect(defaulted).toEqual(
      expect.arrayContaining([
        { name: "CreatePageRequest", field: "type", required: false },
        { name: "QueryRowsRequest", field: "filters", required: false },
        { name: "QueryRowsRequest", field: "sorts", required: false },
      ]),
    );
    expect(defaulted.filter(({ required }) => required)).toEqual([]);
  });
});
