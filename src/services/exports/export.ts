import { Zip, ZipDeflate } from "fflate";
import { contentDisposition as fileDisposition } from "../../lib/content-disposition";
import type { UserContext } from "../../lib/context";
import { badRequest } from "../../lib/errors";
import { loadOnce } from "../../lib/load-once";
import { log } from "../../lib/log";
import type { BlockTree } from "../../schemas/blocks";
import { PAGE_LIKE_TYPES } from "../block-writes/typed-fields";
import { blockNotFound, getHierarchy, HIERARCHY_MAX_DEPTH } from "../blocks/queries";
import { contentToHtml } from "../content/html";
import { contentToMarkdown } from "../content/markdown";
import type { DatabaseSchema } from "../databases/property-types";
import { allRows, countRows } from "../databases/row-query";
import type { Row } from "../databases/rows";
import { loadDatabaseSchema } from "../databases/schema-records";
import { pageTitle } from "../pages/pages";
import { csvHeader, csvLines } from "./csv";
import { pageDocument } from "./page-document";

export type ExportFormat = "markdown" | "html" | "json" | "pdf" | "csv";

export interface ExportedFile {
  filename: string;
  contentType: string;
  /** Page exports are built whole; database exports stream their rows as they are read. */
  body: Uint8Array | ReadableStream<Uint8Array>;
  /** Database exports: how many rows the file holds, and whether EXPORT_MAX_ROWS cut it short. */
  rows?: { exported: number; truncated: boolean };
}

/**
 * Rows one database export carries at most, unless the EXPORT_MAX_ROWS var
 * says otherwise. D1 answers at most 1,000 queries per Worker invocation (50
 * on the free plan) and an export reads 2,000 rows a query: a million stays
 * well inside the paid limit. A cut export says so in its headers.
 */
export const DEFAULT_EXPORT_MAX_ROWS = 1_000_000;

const exportMaxRows = (env: Env): number => {
  const configured = Number(env.EXPORT_MAX_ROWS);
  return Number.isInteger(configured) && configured > 0 ? configured : DEFAULT_EXPORT_MAX_ROWS;
};

const FILE_TYPES: Record<ExportFormat, { extension: string; contentType: string }> = {
  markdown: { extension: "md", contentType: "text/markdown; charset=utf-8" },
  html: { extension: "html", contentType: "text/html; charset=utf-8" },
  json: { extension: "json", contentType: "application/json; charset=utf-8" },
  pdf: { extension: "pdf", contentType: "application/pdf" },
  csv: { extension: "csv", contentType: "text/csv; charset=utf-8" },
};

const PAGE_FORMATS: readonly ExportFormat[] = ["markdown", "html", "json", "pdf"];
const DATABASE_FORMATS: readonly ExportFormat[] = ["csv", "json"];

/**
 * A file-name-safe form of a title, in any script: its letters, marks and digits (NFC), words
 * joined by `-`, lower case, at most 80 characters; `untitled` when none is left.
 */
const slug = (title: string) =>
  Array.from(
    title
      .normalize("NFC")
      .replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, "")
      .trim()
      .replace(/\s+/g, "-")
      .toLowerCase(),
  )
    .slice(0, 80)
    .join("") || "untitled";

/** The ASCII form of an export's file name (for `filename`, beside `filename*`): accents folded, other scripts dropped. */
function asciiFilename(filename: string): string {
  const dot = filename.lastIndexOf(".");
  const stem = filename
    .slice(0, dot)
    .normalize("NFKD")
    .replace(/[^\w-]/g, "")
    .replace(/-{2,}/g, "-")
    .replace(/^-|-$/g, "");
  return `${stem || "untitled"}${filename.slice(dot)}`;
}

const encode = (text: string) => new TextEncoder().encode(text);

/**
 * A byte stream of what a generator yields, read as the client reads. A failure
 * after the response has begun cannot change its status: it is logged with the
 * request id and ends the stream in error, so the client sees a broken transfer
 * rather than a file that looks complete.
 */
function streamOf(ctx: UserContext, parts: AsyncGenerator<string | Uint8Array>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await parts.next();
        if (done) controller.close();
        else controller.enqueue(typeof value === "string" ? encoder.encode(value) : value);
      } catch (error) {
        log(ctx, "error", "export stream failed", {
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        });
        controller.error(error);
      }
    },
    async cancel() {
      await parts.return(undefined);
    },
  });
}

/**
 * The rows of a database export, the first chunk already read: a failure to
 * read at all is an error response, not a broken stream.
 */
async function exportRows(ctx: UserContext, schema: DatabaseSchema, max: number) {
  const rows = allRows(ctx, schema, max);
  const first = await rows.next();
  async function* chunks(): AsyncGenerator<Row[]> {
    if (first.done) return;
    yield first.value;
    yield* rows;
  }
  return chunks();
}

/** RFC 4180 CSV: the header, then each row on its own CRLF-separated line. */
async function* databaseCsv(schema: DatabaseSchema, rows: AsyncGenerator<Row[]>): AsyncGenerator<string> {
  yield csvHeader(schema);
  for await (const chunk of rows) yield `\r\n${csvLines(schema, chunk)}`;
}

/** `{database, schema, rows}`, with the rows written as they are read. */
async function* databaseJson(tree: BlockTree, schema: DatabaseSchema, rows: AsyncGenerator<Row[]>) {
  yield `{\n  "database": ${JSON.stringify(tree)},\n  "schema": ${JSON.stringify(schema.properties)},\n  "rows": [`;
  let first = true;
  for await (const chunk of rows) {
    for (const row of chunk) {
      yield `${first ? "\n    " : ",\n    "}${JSON.stringify(row)}`;
      first = false;
    }
  }
  yield first ? "]\n}\n" : "\n  ]\n}\n";
}

/** The visible, active page, database or row `id` with its whole subtree, as every export reads it; else a 404. */
async function exportedTree(ctx: UserContext, id: string): Promise<BlockTree> {
  const { tree } = await getHierarchy(ctx, id, HIERARCHY_MAX_DEPTH);
  if (!PAGE_LIKE_TYPES.has(tree.type)) throw blockNotFound(id);
  return tree;
}

/** The format an export of `tree` is written in: the one asked for, else the kind's default; a 400 for one the kind has not. */
function exportFormat(tree: BlockTree, requested: ExportFormat | undefined): ExportFormat {
  const allowed = tree.type === "database" ? DATABASE_FORMATS : PAGE_FORMATS;
  const format = requested ?? allowed[0] ?? "markdown";
  if (!allowed.includes(format)) {
    throw badRequest(`A ${tree.type} exports as ${allowed.join(" or ")}`, { format, allowed });
  }
  return format;
}

/** The page as one markdown document: its title, its body, then its child blocks in order. */
function markdownOf(tree: BlockTree, title: string): string {
  const document = pageDocument(tree, title);
  return contentToMarkdown(document.items, { title: document.title });
}

/**
 * Exports a visible, active page (the page with its whole subtree) or database
 * (its rows). Without a format: markdown for pages, csv for databases.
 */
export async function exportPage(ctx: UserContext, id: string, requested?: ExportFormat): Promise<ExportedFile> {
  const tree = await exportedTree(ctx, id);
  const format = exportFormat(tree, requested);
  const { extension, contentType } = FILE_TYPES[format];
  const title = (await pageTitle(ctx, tree)) || "Untitled";
  const filename = `${slug(title)}.${extension}`;

  if (tree.type === "database") {
    const schema = await loadDatabaseSchema(ctx, id);
    const max = exportMaxRows(ctx.env);
    const total = await countRows(ctx, schema, max + 1);
    const rows = await exportRows(ctx, schema, max);
    const parts = format === "csv" ? databaseCsv(schema, rows) : databaseJson(tree, schema, rows);
    const truncated = total > max;
    return {
      filename,
      contentType,
      body: streamOf(ctx, parts),
      rows: { exported: truncated ? max : total, truncated },
    };
  }

  if (format === "json") return { filename, contentType, body: encode(JSON.stringify(tree, null, 2)) };
  if (format === "markdown") return { filename, contentType, body: encode(markdownOf(tree, title)) };
  const document = pageDocument(tree, title);
  if (format === "html") {
    return { filename, contentType, body: encode(contentToHtml(document.items, { title: document.title })) };
  }
  const { contentToPdf } = await loadPdfWriter();
  return { filename, contentType, body: await contentToPdf(document.items, { title: document.title }) };
}

/**
 * The PDF writer: pdf-lib (with its fonts' metrics, decompressed as it loads) is loaded by the first
 * PDF export, not at every isolate's startup (docs/performance.md, Startup).
 */
export const loadPdfWriter = loadOnce(() => import("../content/pdf"));

/**
 * A page's or row's markdown export as text (what `exportPage` writes as its markdown file), with
 * the title it carries and the tree it was written from (whose `children` a caller may list).
 */
export async function exportMarkdown(
  ctx: UserContext,
  id: string,
): Promise<{ markdown: string; title: string; tree: BlockTree }> {
  const tree = await exportedTree(ctx, id);
  exportFormat(tree, "markdown");
  const title = (await pageTitle(ctx, tree)) || "Untitled";
  return { markdown: markdownOf(tree, title), title, tree };
}

export const BATCH_EXPORT_MAX_PAGES = 50;

/**
 * Several exports in one zip, file names made unique. Every page is found and
 * its export begun before the first byte is sent (any missing page fails the
 * whole batch with a 404); then the zip streams, each database's rows as they
 * are read, so a batch holds what single exports hold without buffering it.
 */
export async function exportBatch(
  ctx: UserContext,
  ids: string[],
  format?: ExportFormat,
): Promise<ReadableStream<Uint8Array>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0 || unique.length > BATCH_EXPORT_MAX_PAGES) {
    throw badRequest(`Give between 1 and ${BATCH_EXPORT_MAX_PAGES} page ids`, { count: unique.length });
  }
  const files: { name: string; body: ExportedFile["body"] }[] = [];
  const names = new Set<string>();
  for (const id of unique) {
    const file = await exportPage(ctx, id, format);
    let name = file.filename;
    for (let n = 2; names.has(name); n++) name = file.filename.replace(/(\.\w+)$/, `-${n}$1`);
    names.add(name);
    files.push({ name, body: file.body });
  }
  return streamOf(ctx, zipped(files));
}

/** A zip of `files`, yielded as fflate produces it while each file is read. */
async function* zipped(files: { name: string; body: ExportedFile["body"] }[]): AsyncGenerator<Uint8Array> {
  const ready: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, chunk) => {
    if (error) failure = error;
    else ready.push(chunk);
  });
  function* drain() {
    if (failure) throw failure;
    yield* ready.splice(0);
  }
  for (const file of files) {
    const entry = new ZipDeflate(file.name, { level: 6 });
    zip.add(entry);
    if (file.body instanceof Uint8Array) entry.push(file.body, true);
    else {
      for await (const chunk of file.body) {
        entry.push(chunk);
        yield* drain();
      }
      entry.push(new Uint8Array(0), true);
    }
    yield* drain();
  }
  zip.end();
  yield* drain();
}

/** An export's `Content-Disposition`: the file name as RFC 5987 UTF-8, with an ASCII fallback. */
export const contentDisposition = (filename: string) =>
  fileDisposition("attachment", filename, asciiFilename(filename));
