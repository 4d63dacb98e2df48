import { z } from "@hono/zod-openapi";
import type { RequestContext } from "../../lib/context";
import { ApiError, badRequest, validationDetails } from "../../lib/errors";
import { withinJsonDepth } from "../../lib/json-depth";
import { LONE_SURROGATE, refuseLoneSurrogateIn } from "../../lib/lone-surrogates";
import { refuseReservedKeyIn } from "../../lib/reserved-keys";
import { MEDIA_METADATA_MAX_BYTES, MEDIA_METADATA_MAX_DEPTH } from "../../schemas/media";
import { base64Length, MULTIPART_ALLOWANCE_BYTES, maxJsonUploadBytes, maxUploadBytes } from "./config";
import { essence } from "./content-types";
import type { UploadInput } from "./storage";
import { isBidiFormatting, isC1Control, isControlCode } from "./unsafe-characters";

// Reading an upload: a multipart body (file part `file`, text fields `filename` and `metadata`)
// or a JSON body with the file in base64. The size limit (MEDIA_MAX_UPLOAD_BYTES) is held while
// the body is read, not after: a body announced larger is refused unread, and one that turns out
// larger is refused at the first byte past the limit.

export const FILENAME_MAX_CHARACTERS = 255;
const MULTIPART_FIELDS = new Set(["file", "filename", "metadata"]);
/** How many unknown multipart fields a 400 names, and how much of each name. */
const UNKNOWN_FIELDS_SHOWN = 20;
const FIELD_NAME_SHOWN = 64;

const tooLarge = (maxFileBytes: number) =>
  new ApiError("payload_too_large", `The file is larger than ${maxFileBytes} bytes`, { max_bytes: maxFileBytes });

/** The body as a stream that fails at the first byte past `max`; `exceeded` says whether that is why it failed. */
function limitedBody(body: ReadableStream<Uint8Array>, max: number) {
  const state = { exceeded: false };
  let seen = 0;
  const stream = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > max) {
          state.exceeded = true;
          controller.error(new Error("body too large"));
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
  return { stream, state };
}

/** A 413 unread when the body announces more than `max` bytes. */
function refuseAnnouncedSize(request: Request, max: number, maxFileBytes: number) {
  const announced = Number(request.headers.get("Content-Length"));
  if (Number.isFinite(announced) && announced > max) throw tooLarge(maxFileBytes);
}

/**
 * A filename as stored: its last path segment, without control characters (C0, DEL, C1) or
 * bidirectional formatting characters (which can make a name read as another), trimmed, 1 to 255
 * characters.
 */
export function cleanFilename(raw: string, explicit: boolean): string {
  const last = raw.split(/[/\\]/).pop() ?? "";
  const name = [...last]
    .filter((char) => {
      const code = char.charCodeAt(0);
      return !isControlCode(code) && !isC1Control(code) && !isBidiFormatting(code);
    })
    .join("")
    .trim();
  if (LONE_SURROGATE.test(name)) throw badRequest("filename holds a lone UTF-16 surrogate", { field: "filename" });
  if ([...name].length > FILENAME_MAX_CHARACTERS) {
    throw badRequest(`filename must be at most ${FILENAME_MAX_CHARACTERS} characters`, { field: "filename" });
  }
  if (name === "") {
    if (explicit) throw badRequest("filename must not be empty", { field: "filename" });
    return "file";
  }
  return name;
}

/** A metadata object as given (JSON text in a multipart field, or a JSON value), or a 400. */
export function checkedMetadata(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw badRequest("metadata must be a JSON object", { field: "metadata" });
  }
  if (!withinJsonDepth(value, MEDIA_METADATA_MAX_DEPTH)) {
    throw badRequest(`metadata must nest at most ${MEDIA_METADATA_MAX_DEPTH} levels`, { field: "metadata" });
  }
  const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
  if (bytes > MEDIA_METADATA_MAX_BYTES) {
    throw badRequest(`metadata must be at most ${MEDIA_METADATA_MAX_BYTES} bytes as JSON`, {
      field: "metadata",
      max_bytes: MEDIA_METADATA_MAX_BYTES,
    });
  }
  return value as Record<string, unknown>;
}

function parseMetadataText(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest("metadata must be a JSON object", { field: "metadata" });
  }
  const metadata = checkedMetadata(value);
  // A multipart field's JSON reaches no validation hook (openapi/validation.ts): checked here.
  refuseLoneSurrogateIn(text, value, "metadata");
  refuseReservedKeyIn(text, value, "metadata");
  return metadata;
}

/** Reads an upload request: multipart or JSON; any other Content-Type is a 415. */
export async function readUploadRequest(ctx: RequestContext, request: Request): Promise<UploadInput> {
  const type = essence(request.headers.get("Content-Type"));
  if (type === "multipart/form-data") return readMultipart(ctx, request);
  if (type === "application/json") return readJson(ctx, request);
  if (!request.body && !request.headers.get("Content-Type")) {
    throw badRequest("No file: send a multipart body with a file part named `file`", { field: "file" });
  }
  throw new ApiError("unsupported_media_type", "Send the file as multipart/form-data (or JSON with base64)", {
    accepted: ["multipart/form-data", "application/json"],
  });
}

async function readMultipart(ctx: RequestContext, request: Request): Promise<UploadInput> {
  const maxFileBytes = maxUploadBytes(ctx.env);
  const maxBody = maxFileBytes + MULTIPART_ALLOWANCE_BYTES;
  refuseAnnouncedSize(request, maxBody, maxFileBytes);
  if (!request.body) throw badRequest("No file: the multipart body is empty", { field: "file" });
  // A body that announces its length (checked above) is that long: HTTP framing ends it there.
  // Only a body without one is counted as it streams, which costs a JS step per chunk.
  const announced = request.headers.get("Content-Length") !== null;
  const { stream, state } = announced
    ? { stream: request.body, state: { exceeded: false } }
    : limitedBody(request.body, maxBody);
  let form: FormData;
  try {
    form = await new Response(stream, {
      headers: { "Content-Type": request.headers.get("Content-Type") ?? "" },
    }).formData();
  } catch {
    if (state.exceeded) throw tooLarge(maxFileBytes);
    throw badRequest("The body is not a readable multipart/form-data body", { reason: "malformed_multipart" });
  }

  const names = [...form.keys()];
  const unknown = [...new Set(names.filter((name) => !MULTIPART_FIELDS.has(name)))];
  if (unknown.length > 0) {
    // Named back, but not without bound: a body may carry thousands of fields with long names.
    const shown = unknown.slice(0, UNKNOWN_FIELDS_SHOWN).map((name) => [...name].slice(0, FIELD_NAME_SHOWN).join(""));
    const more = unknown.length - shown.length;
    throw badRequest(`Unknown fields: ${shown.join(", ")}${more > 0 ? ` (and ${more} more)` : ""}`, {
      fields: shown,
      unknown_count: unknown.length,
      allowed: [...MULTIPART_FIELDS],
    });
  }
  for (const name of MULTIPART_FIELDS) {
    if (names.filter((n) => n === name).length > 1)
      throw badRequest(`${name} is given more than once`, { field: name });
  }
  const file = form.get("file");
  if (file === null) throw badRequest("No file: send a file part named `file`", { field: "file" });
  if (typeof file === "string") throw badRequest("`file` must be a file part, not a text field", { field: "file" });
  if (file.size === 0) throw badRequest("The file is empty", { field: "file" });
  if (file.size > maxFileBytes) throw tooLarge(maxFileBytes);

  const filenameField = form.get("filename");
  const metadataField = form.get("metadata");
  if (filenameField !== null && typeof filenameField !== "string") {
    throw badRequest("`filename` must be a text field", { field: "filename" });
  }
  if (metadataField !== null && typeof metadataField !== "string") {
    throw badRequest("`metadata` must be a text field holding a JSON object", { field: "metadata" });
  }
  return {
    file,
    filename: filenameField !== null ? cleanFilename(filenameField, true) : cleanFilename(file.name, false),
    declaredType: file.type || undefined,
    metadata: metadataField !== null ? parseMetadataText(metadataField) : {},
  };
}

/**
 * Whether `text` is base64 (standard alphabet; padded to a multiple of 4, or unpadded), checked in
 * one linear pass: a regular expression over megabytes of text overflows the regex engine's stack.
 */
export function isBase64(text: string): boolean {
  if (/[^A-Za-z0-9+/=]/.test(text)) return false;
  const padding = text.indexOf("=");
  if (padding === -1) return text.length % 4 !== 1;
  // `=` only at the end: one or two of them, completing a group of 4.
  const tail = text.length - padding;
  return (tail === 1 || (tail === 2 && text.endsWith("=="))) && text.length % 4 === 0;
}

/** The JSON form of an upload, for clients that cannot send multipart; small files only. */
export const UploadJsonBody = z.strictObject({
  content_base64: z
    .string()
    .min(1, "content_base64 must not be empty")
    .refine(isBase64, "content_base64 must be base64"),
  filename: z.string().optional(),
  content_type: z.string().max(255).optional(),
  metadata: z.unknown().optional(),
});

async function readJson(ctx: RequestContext, request: Request): Promise<UploadInput> {
  const maxFileBytes = maxJsonUploadBytes(ctx.env);
  const maxBody = base64Length(maxFileBytes) + MULTIPART_ALLOWANCE_BYTES;
  refuseAnnouncedSize(request, maxBody, maxFileBytes);
  if (!request.body) throw new ApiError("malformed_json", "The body is not valid JSON");
  const { stream, state } = limitedBody(request.body, maxBody);
  let text: string;
  try {
    text = await new Response(stream).text();
  } catch (error) {
    if (state.exceeded) throw tooLarge(maxFileBytes);
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError("malformed_json", "The body is not valid JSON");
  }
  // Read here, not by a route's validator: refused here as the validation hook refuses it.
  refuseLoneSurrogateIn(text, value);
  const parsed = UploadJsonBody.safeParse(value);
  if (!parsed.success) throw badRequest("Invalid request body", validationDetails(parsed.error, "request body"));
  refuseReservedKeyIn(text, value);
  const body = parsed.data;
  // Checked before decoding: the decoded size follows from the text's length.
  if (Math.floor((body.content_base64.length * 3) / 4) - 2 > maxFileBytes) throw tooLarge(maxFileBytes);
  let binary: string;
  try {
    binary = atob(body.content_base64);
  } catch {
    throw badRequest("content_base64 must be base64", { field: "content_base64" });
  }
  if (binary.length > maxFileBytes) throw tooLarge(maxFileBytes);
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  return {
    file: new Blob([bytes]),
    filename: body.filename !== undefined ? cleanFilename(body.filename, true) : "file",
    declaredType: body.content_type,
    metadata: body.metadata !== undefined ? checkedMetadata(body.metadata) : {},
  };
}
