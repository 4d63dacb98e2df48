import { zipSync } from "fflate";
import type { UserContext } from "../../lib/context";
import { badRequest } from "../../lib/errors";
import type { BlockTree } from "../../schemas/blocks";
import { PAGE_LIKE_TYPES } from "../block-writes/typed-fields";
import { blockNotFound, getHierarchy, HIERARCHY_MAX_DEPTH } from "../blocks/queries";
import { contentToHtml } from "../content/html";
import { contentToMarkdown } from "../content/markdown";
import { contentToPdf } from "../content/pdf";
import type { DatabaseSchema } from "../databases/property-types";
import { allRows } from "../databases/row-query";
import { loadDatabaseSchema } from "../databases/schema-records";
import { pageTitle } from "../pages/pages";
import { csvHeader, csvLines } from "./csv";
import { pageDocument } from "./page-document";

export type ExportFormat = "markdown" | "html" | "json" | "pdf" | "csv";

export interface ExportedFile {
  filename: string;
  contentType: string;
  /** Page exports are built whole; database exports stream, however many rows there are. */
  body: Uint8Array | ReadableStream<Uint8Array>;
}

const FILE_TYPES: Record<ExportFormat, { extension: string; contentType: string }> = {
  markdown: { extension: "md", contentType: "text/markdown; charset=utf-8" },
  html: { extension: "html", contentType: "text/html; charset=utf-8" },
  json: { extension: "json", contentType: "application/json; charset=utf-8" },
  pdf: { extension: "pdf", contentType: "application/pdf" },
  csv: { extension: "csv", contentType: "text/csv; charset=utf-8" },
};

const PAGE_FORMATS: readonly ExportFormat[] = ["markdown", "html", "json", "pdf"];
const DATABASE_FORMATS: readonly ExportFormat[] = ["csv", "json"];

/** A file-name-safe form of a title. */
const slug = (title: string) =>
  title
    .normalize("NFKD")
    .replace(/[^\w\s-]/g, "")
    .trim()
    .replace(/\s+/g, "-")
    .toLowerCase()
    .slice(0, 80) || "untitled";

const encode = (text: string) => new TextEncoder().encode(text);

/** A byte stream of the text an async generator yields, read as the client reads. */
function streamOf(parts: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await parts.next();
      if (done) controller.close();
      else controller.enqueue(encoder.encode(value));
    },
    async cancel() {
      await parts.return(undefined);
    },
  });
}

/** RFC 4180 CSV: the header, then each row on its own CRLF-separated line. */
async function* databaseCsv(ctx: UserContext, schema: DatabaseSchema): AsyncGenerator<string> {
  yield csvHeader(schema);
  for await (const rows of allRows(ctx, schema)) yield `\r\n${csvLines(schema, rows)}`;
}

/** `{database, schema, rows}`, with the rows written as they are read. */
async function* databaseJson(ctx: UserContext, tree: BlockTree, schema: DatabaseSchema): AsyncGenerator<string> {
  yield `{\n  "database": ${JSON.stringify(tree)},\n  "schema": ${JSON.stringify(schema.properties)},\n  "rows": [`;
  let first = true;
  for await (const rows of allRows(ctx, schema)) {
    for (const row of rows) {
      yield `${first ? "\n    " : ",\n    "}${JSON.stringify(row)}`;
      first = false;
    }
  }
  yield first ? "]\n}\n" : "\n  ]\n}\n";
}

/**
 * Exports a visible, active page (the page with its whole subtree) or database
 * (its rows). Without a format: markdown for pages, csv for databases.
 */
export async function exportPage(ctx: UserContext, id: string, requested?: ExportFormat): Promise<ExportedFile> {
  const { tree } = await getHierarchy(ctx, id, HIERARCHY_MAX_DEPTH);
  if (!PAGE_LIKE_TYPES.has(tree.type)) throw blockNotFound(id);
  const isDatabase = tree.type === "database";
  const allowed = isDatabase ? DATABASE_FORMATS : PAGE_FORMATS;
  const format = requested ?? allowed[0] ?? "markdown";
  if (!allowed.includes(format)) {
    throw badRequest(`A ${tree.type} exports as ${allowed.join(" or ")}`, { format, allowed });
  }
  const { extension, contentType } = FILE_TYPES[format];
  const title = (await pageTitle(ctx, tree)) || "Untitled";
  const filename = `${slug(title)}.${extension}`;

  if (isDatabase) {
    const schema = await loadDatabaseSchema(ctx, id);
    const parts = format === "csv" ? databaseCsv(ctx, schema) : databaseJson(ctx, tree, schema);
    return { filename, contentType, body: streamOf(parts) };
  }

  if (format === "json") return { filename, contentType, body: encode(JSON.stringify(tree, null, 2)) };
  const document = pageDocument(tree, title);
  switch (format) {
    case "html":
      return { filename, contentType, body: encode(contentToHtml(document.items, { title: document.title })) };
    case "pdf":
      return { filename, contentType, body: await contentToPdf(document.items, { title: document.title }) };
    default:
      return { filename, contentType, body: encode(contentToMarkdown(document.items, { title: document.title })) };
  }
}

export const BATCH_EXPORT_MAX_PAGES = 50;

/** Several exports in one zip; file names made unique. Any missing page fails the whole batch. */
export async function exportBatch(ctx: UserContext, ids: string[], format?: ExportFormat): Promise<Uint8Array> {
  const unique = [...new Set(ids)];
  if (unique.length === 0 || unique.length > BATCH_EXPORT_MAX_PAGES) {
    throw badRequest(`Give between 1 and ${BATCH_EXPORT_MAX_PAGES} page ids`, { count: unique.length });
  }
  const files: Record<string, Uint8Array> = {};
  for (const id of unique) {
    const file = await exportPage(ctx, id, format);
    let name = file.filename;
    for (let n = 2; name in files; n++) name = file.filename.replace(/(\.\w+)$/, `-${n}$1`);
    files[name] =
      file.body instanceof Uint8Array ? file.body : new Uint8Array(await new Response(file.body).arrayBuffer());
  }
  return zipSync(files);
}

export const contentDisposition = (filename: string) =>
  `attachment; filename="${filename}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
