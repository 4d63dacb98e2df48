import { fileTypeFromBuffer } from "file-type";
import { ACCEPTED_AUDIO, ACCEPTED_AUDIO_NAMES, AUDIO_FIELD } from "../../domain/transcription-audio";
import type { RequestContext } from "../../lib/context";
import { ApiError, badRequest } from "../../lib/errors";
import { essence, SNIFF_BYTES } from "../media/content-types";
import { maxAudioBytes } from "./config";

// Reading the audio of a transcription request: one file part named `audio` in a multipart body,
// at most TRANSCRIPTION_MAX_BYTES, whose bytes are a container browsers and phones record in. The
// bytes decide (magic numbers, through `file-type`); the declared type and filename are not used.

/** How many field names a 400 names back, and how much of each. */
const FIELDS_SHOWN = 20;
const FIELD_NAME_SHOWN = 64;

export interface AudioUpload {
  file: Blob;
  /** The type the bytes say they are (a key of ACCEPTED_AUDIO). */
  mediaType: string;
  /** The extension of that type, for the name the file is sent under. */
  extension: string;
}

const tooLarge = (maxBytes: number) =>
  new ApiError("payload_too_large", `The audio file is larger than ${maxBytes} bytes`, { max_bytes: maxBytes });

const shownNames = (names: string[]) =>
  names.slice(0, FIELDS_SHOWN).map((name) => [...name].slice(0, FIELD_NAME_SHOWN).join(""));

/**
 * The audio of a transcription request, or a 400 (no `audio` file part, an empty file, bytes that
 * are not audio), 413 (above TRANSCRIPTION_MAX_BYTES) or 415 (not multipart/form-data).
 */
export async function readAudioUpload(ctx: Pick<RequestContext, "env">, request: Request): Promise<AudioUpload> {
  const type = essence(request.headers.get("Content-Type"));
  if (type !== "multipart/form-data") {
    if (!request.body && !request.headers.get("Content-Type")) {
      throw badRequest("No audio file: send a multipart body with a file part named `audio`", { field: AUDIO_FIELD });
    }
    const message = "Send the audio as multipart/form-data, in a file part named `audio`";
    throw new ApiError("unsupported_media_type", message, { accepted: ["multipart/form-data"] });
  }
  const maxBytes = maxAudioBytes(ctx.env);
  // The route's body limit has already held the body to the configured size and its framing.
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    throw badRequest("The body is not a readable multipart/form-data body", { reason: "malformed_multipart" });
  }

  const names = [...new Set(form.keys())];
  const parts = form.getAll(AUDIO_FIELD);
  if (parts.length === 0) {
    throw badRequest("No audio file: send the recording as a file part named `audio`", {
      field: AUDIO_FIELD,
      received_fields: shownNames(names),
    });
  }
  if (parts.length > 1) throw badRequest("`audio` is given more than once", { field: AUDIO_FIELD });
  const unknown = names.filter((name) => name !== AUDIO_FIELD);
  if (unknown.length > 0) {
    throw badRequest(`Unknown fields: ${shownNames(unknown).join(", ")}`, {
      fields: shownNames(unknown),
      unknown_count: unknown.length,
      allowed: [AUDIO_FIELD],
    });
  }
  const file = parts[0];
  if (typeof file === "string" || file === undefined) {
    throw badRequest("`audio` must be a file part, not a text field", { field: AUDIO_FIELD });
  }
  if (file.size === 0) throw badRequest("The audio file is empty", { field: AUDIO_FIELD });
  if (file.size > maxBytes) throw tooLarge(maxBytes);

  const head = new Uint8Array(await file.slice(0, SNIFF_BYTES).arrayBuffer());
  const detected = (await fileTypeFromBuffer(head))?.mime;
  const extension = detected ? ACCEPTED_AUDIO.get(detected) : undefined;
  if (!detected || !extension) {
    throw badRequest(`The file is not audio this service transcribes: send ${ACCEPTED_AUDIO_NAMES.join(", ")}`, {
      field: AUDIO_FIELD,
      detected: detected ?? null,
      accepted: ACCEPTED_AUDIO_NAMES,
    });
  }
  return { file, mediaType: detected, extension };
}
