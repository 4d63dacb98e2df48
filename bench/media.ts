// The media endpoints under load: an upload of a 1 MiB file, and a signed
// download of one. Measured at the smallest dataset size only: media reads no
// blocks, so its figures do not depend on how many there are.
//
// The Worker gets the file as a multipart body (file part `file`) with the API
// key, and its download is the GET of the signed URL one upload answered. The
// baseline gets the same bytes as its raw request body, with the user id, the
// type and the SHA-256 in headers (it neither parses, sniffs nor hashes), and
// its download is the GET of the path its upload answered.
import { createHash } from "node:crypto";
import { MEDIA_FILE_BYTES, TARGETS } from "./config.ts";
import { type LoadTarget, roundTripsOf } from "./load.ts";
import type { MeasurementTargets } from "./report.ts";
import type { Target } from "./verify.ts";

const FILENAME = "bench-1mib.bin";
/**
 * The file's declared type. Its pseudo-random bytes carry no magic number, so
 * the Worker's sniffing keeps this type (verifyMedia checks that it does).
 */
const CONTENT_TYPE = "application/octet-stream";
const UPLOAD_PATH = "/api/v1/media/upload";

/** Both servers under one kind of media request. */
interface MediaPair {
  worker: LoadTarget;
  baseline: LoadTarget;
}

export interface MediaEndpoint {
  name: string;
  pick: (media: MediaTargets) => MediaPair;
  targets: MeasurementTargets;
}

export interface MediaTargets {
  upload: MediaPair;
  download: MediaPair;
  /** The Worker's D1 round trips per endpoint name, from the verification requests. */
  firstRoundTrips: Map<string, number>;
}

export const MEDIA_ENDPOINTS: readonly MediaEndpoint[] = [
  {
    name: "upload 1 MiB",
    pick: (media) => media.upload,
    targets: { minThroughputRatio: TARGETS.minUploadThroughputRatio, maxRoundTrips: TARGETS.maxUploadRoundTrips },
  },
  {
    name: "signed download 1 MiB",
    pick: (media) => media.download,
    targets: {
      minThroughputRatio: TARGETS.minThroughputRatio,
      maxRoundTrips: TARGETS.maxSignedDownloadRoundTrips,
    },
  },
];

/** The file: pseudo-random bytes (xorshift32 from a fixed seed), the same on every run. */
function fileBytes(): Buffer {
  const bytes = Buffer.alloc(MEDIA_FILE_BYTES);
  let state = 0x9e3779b9;
  for (let i = 0; i < bytes.length; i += 4) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes.writeUInt32LE(state >>> 0, i);
  }
  return bytes;
}

interface MediaFile {
  bytes: Buffer;
  sha256: string;
  /** The Worker's request body: the file as the one part of a multipart/form-data body. */
  multipart: Buffer;
  boundary: string;
}

function mediaFile(): MediaFile {
  const bytes = fileBytes();
  const boundary = "workspace-api-bench-boundary-7f3c1e";
  if (bytes.includes(boundary)) throw new Error("The bench file holds its own multipart boundary");
  const multipart = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${FILENAME}"\r\n` +
        `Content-Type: ${CONTENT_TYPE}\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { bytes, sha256: createHash("sha256").update(bytes).digest("hex"), multipart, boundary };
}

interface Answer {
  status: number;
  bytes: Buffer;
  contentType: string | null;
  roundTrips: number | null;
}

async function send(target: LoadTarget): Promise<Answer> {
  const response = await fetch(target.url, {
    method: target.method ?? "GET",
    headers: target.headers,
    ...(target.body ? { body: new Uint8Array(target.body) } : {}),
  });
  return {
    status: response.status,
    bytes: Buffer.from(await response.arrayBuffer()),
    contentType: response.headers.get("Content-Type"),
    roundTrips: roundTripsOf(response.headers),
  };
}

const textOf = (answer: Answer) => answer.bytes.subarray(0, 300).toString();

function jsonOf(answer: Answer): Record<string, unknown> {
  try {
    const body: unknown = JSON.parse(answer.bytes.toString());
    if (typeof body === "object" && body !== null) return body as Record<string, unknown>;
  } catch {
    // Reported below.
  }
  throw new Error(`not a JSON object: ${textOf(answer)}`);
}

function fail(endpoint: string, problem: string): never {
  throw new Error(`${endpoint}: ${problem}`);
}

/**
 * Before any load: one upload to each server, checked (the Worker's record
 * holds the file's size, hash and type), then each server's download of what
 * it stored, which must be the file's bytes with its type. Answers the load
 * targets: the uploads as checked, and the downloads of those two objects.
 */
export async function verifyMedia(worker: Target, baseline: Target, userId: string): Promise<MediaTargets> {
  const [uploadName, downloadName] = MEDIA_ENDPOINTS.map((endpoint) => endpoint.name) as [string, string];
  const file = mediaFile();
  const upload: MediaPair = {
    worker: {
      url: worker.server.origin + UPLOAD_PATH,
      method: "POST",
      headers: { ...worker.headers, "Content-Type": `multipart/form-data; boundary=${file.boundary}` },
      body: file.multipart,
    },
    baseline: {
      url: baseline.server.origin + UPLOAD_PATH,
      method: "POST",
      headers: {
        ...baseline.headers,
        "Content-Type": CONTENT_TYPE,
        "X-Bench-Sha256": file.sha256,
        "X-Bench-Filename": FILENAME,
      },
      body: file.bytes,
    },
  };

  const workerUpload = await send(upload.worker);
  if (workerUpload.status !== 201) fail(uploadName, `Worker answered ${workerUpload.status}: ${textOf(workerUpload)}`);
  const record = jsonOf(workerUpload);
  const expected = { size: MEDIA_FILE_BYTES, sha256: file.sha256, content_type: CONTENT_TYPE, filename: FILENAME };
  for (const [field, value] of Object.entries(expected)) {
    if (record[field] !== value)
      fail(uploadName, `the Worker's record has ${field} ${record[field]}, expected ${value}`);
  }
  if (!String(record.path).startsWith(`${userId}/`)) fail(uploadName, `Worker stored at ${record.path}`);
  if (typeof record.signedUrl !== "string") fail(uploadName, "the Worker answered no signedUrl");
  if (workerUpload.roundTrips === null) fail(uploadName, "the Worker sent no Server-Timing d1 round trips");

  const baselineUpload = await send(upload.baseline);
  if (baselineUpload.status !== 201) {
    fail(uploadName, `baseline answered ${baselineUpload.status}: ${textOf(baselineUpload)}`);
  }
  const baselinePath = String(jsonOf(baselineUpload).path);
  if (!baselinePath.startsWith(`${userId}/`)) fail(uploadName, `baseline stored at ${baselinePath}`);

  // The link is made on the origin the Worker was reached at; taken apart anyway, so
  // that the load goes to the server started here whatever origin the Worker saw.
  const signed = new URL(record.signedUrl);
  const download: MediaPair = {
    worker: { url: worker.server.origin + signed.pathname + signed.search, headers: {} },
    baseline: {
      url: `${baseline.server.origin}/media/${baselinePath.split("/").map(encodeURIComponent).join("/")}`,
      headers: {},
    },
  };
  const workerDownload = await send(download.worker);
  const baselineDownload = await send(download.baseline);
  for (const [server, answer] of [
    ["Worker", workerDownload],
    ["baseline", baselineDownload],
  ] as const) {
    if (answer.status !== 200) fail(downloadName, `${server} answered ${answer.status}: ${textOf(answer)}`);
    if (!answer.bytes.equals(file.bytes)) {
      fail(downloadName, `${server} returned ${answer.bytes.length} bytes that are not the uploaded file`);
    }
    if (answer.contentType !== CONTENT_TYPE) fail(downloadName, `${server} sent Content-Type ${answer.contentType}`);
  }
  if (workerDownload.roundTrips === null) fail(downloadName, "the Worker sent no Server-Timing d1 round trips");

  return {
    upload,
    download,
    firstRoundTrips: new Map([
      [uploadName, workerUpload.roundTrips],
      [downloadName, workerDownload.roundTrips],
    ]),
  };
}

/** The Worker's D1 round trips of one more request like those under load (an upload stores one more file). */
export async function mediaRoundTrips(target: LoadTarget): Promise<number> {
  const answer = await send(target);
  if (answer.status < 200 || answer.status >= 300) {
    throw new Error(`${target.method ?? "GET"} ${target.url} answered ${answer.status}: ${textOf(answer)}`);
  }
  return answer.roundTrips ?? Number.NaN;
}
