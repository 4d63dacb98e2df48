import { zipSync } from "fflate";
import type { Database } from "../../db/client";
import { badRequest } from "../../lib/errors";
import { blockNotFound, getHierarchy, HIERARCHY_MAX_DEPTH } from "../blocks/queries";
import { PAGE_LIKE_TYPES } from "../blocks/typed-fields";
import { contentToHtml } from "../content/html";
import { contentToMarkdown } from "../content/markdown";
import { contentToPdf } from "../content/pdf";
import { queryRows } from "../databases/row-query";
import { presentRow } from "../databases/rows";
import { loadDatabaseSchema } from "../databases/schema-records";
import { pageTitle } from "../pages/pages";
import { rowsToCsv } from "./csv";
import { pageDocument } from "./page-document";

export type ExportFormat = "markdown" | "html" | "json" | "pdf" | "csv";

export interface ExportedFile {
  filename: string;
  contentType: string;
  body: Uint8Array;
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
/** Rows one database export carries at most. */
export const EXPORT_MAX_ROWS = 10_000;

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

/**
 * Exports a visible, active page (the page with its whole subtree) or database
 * (its rows). Without a format: markdown for pages, csv for databases.
 */
export async function exportPage(
  db: Database,
  userId: string,
  id: string,
  requested?: ExportFormat,
): Promise<ExportedFile> {
  const { tree } = await getHierarchy(db, userId, id, HIERARCHY_MAX_DEPTH);
  if (!PAGE_LIKE_TYPES.has(tree.type)) throw blockNotFound(id);
  const isDatabase = tree.type === "database";
  const allowed = isDatabase ? DATABASE_FORMATS : PAGE_FORMATS;
  const format = requested ?? allowed[0] ?? "markdown";
  if (!allowed.includes(format)) {
    throw badRequest(`A ${tree.type} exports as ${allowed.join(" or ")}`, { format, allowed });
  }
  const { extension, contentType } = FILE_TYPES[format];
  const title = (await pageTitle(db, userId, tree)) || "Untitled";
  const filename = `${slug(title)}.${extension}`;

  if (isDatabase) {
    const schema = await loadDatabaseSchema(db, userId, id);
    const { records } = await queryRows(db, userId, schema, {
      filters: [],
      sorts: [],
      limit: EXPORT_MAX_ROWS,
      offset: 0,
    });
    const rows = records.map((record) => presentRow(schema, record));
    const body =
      format === "csv"
        ? rowsToCsv(schema, rows)
        : JSON.stringify({ database: tree, schema: schema.properties, rows }, null, 2);
    return { filename, contentType, body: encode(body) };
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
export async function exportBatch(
  db: Database,
  userId: string,
  ids: string[],
  format?: ExportFormat,
): Promise<Uint8Array> {
  const unique = [...new Set(ids)];
  if (unique.length === 0 || unique.length > BATCH_EXPORT_MAX_PAGES) {
    throw badRequest(`Give between 1 and ${BATCH_EXPORT_MAX_PAGES} page ids`, { count: unique.length });
  }
  const files: Record<string, Uint8Array> = {};
  for (const id of unique) {
    const file = await exportPage(db, userId, id, format);
    let name = file.filename;
    for (let n = 2; name in files; n++) name = file.filename.replace(/(\.\w+)$/, `-${n}$1`);
    files[name] = file.body;
  }
  return zipSync(files);
}

export const contentDisposition = (filename: string) =>
  `attachment; filename="${filename}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
