import { env, SELF } from "cloudflare:test";
import type {
  MediaFile,
  MediaMetadata,
  MediaSignedUrl,
  ResolvedMediaUrl,
  UploadedMedia,
} from "../../src/schemas/media";
import { type ApiResponse, api, type RequestOptions, type TestUser } from "./api";

export type { MediaFile, MediaMetadata, MediaSignedUrl, ResolvedMediaUrl, UploadedMedia };

export const MEDIA = "/api/v1/media";
/** The origin requests reach the Worker on in tests (test/helpers/api.ts). */
export const ORIGIN = "http://workspace.test";

/** A small valid PNG (1x1, transparent). */
export const PNG_BYTES = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0),
);
/** The start of a PDF. */
export const PDF_BYTES = new TextEncoder().encode("%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n%%EOF\n");

export const bytesOf = (text: string) => new TextEncoder().encode(text);

export interface UploadOptions {
  /** The file's bytes (default: a small text). */
  bytes?: Uint8Array;
  /** The file part's own name. */
  name?: string;
  /** The file part's declared Content-Type. */
  type?: string;
  /** The `filename` text field. */
  filename?: string;
  /** The `metadata` text field (objects are sent as JSON). */
  metadata?: unknown;
  /** Further form fields, sent as they are. */
  fields?: Record<string, string>;
  /** Leave out the file part. */
  noFile?: boolean;
  headers?: Record<string, string>;
}

/** The multipart form of an upload. */
export function uploadForm(options: UploadOptions = {}): FormData {
  const form = new FormData();
  if (!options.noFile) {
    const bytes = options.bytes ?? bytesOf("hello media");
    form.append("file", new File([bytes], options.name ?? "hello.txt", { type: options.type ?? "" }));
  }
  if (options.filename !== undefined) form.append("filename", options.filename);
  if (options.metadata !== undefined) {
    form.append("metadata", typeof options.metadata === "string" ? options.metadata : JSON.stringify(options.metadata));
  }
  for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value);
  return form;
}

async function asApiResponse<T>(response: Response): Promise<ApiResponse<T>> {
  const text = await response.text();
  const isJson = response.headers.get("Content-Type")?.includes("application/json");
  const timing = /d1;desc="(\d+) round trips"/.exec(response.headers.get("Server-Timing") ?? "");
  const roundTrips = timing ? Number(timing[1]) : Number.NaN;
  const keyLookedUp = (response.headers.get("Server-Timing") ?? "").includes('auth;desc="api key from D1"');
  return {
    status: response.status,
    body: (isJson && text ? JSON.parse(text) : text) as T,
    headers: response.headers,
    roundTrips,
    queryRoundTrips: roundTrips - (keyLookedUp ? 1 : 0),
  };
}

/** POST /api/v1/media/upload as multipart, as a client would. */
export async function uploadMedia(
  user: TestUser | string | undefined,
  options: UploadOptions = {},
): Promise<ApiResponse<UploadedMedia>> {
  const headers = new Headers(options.headers);
  if (user !== undefined) headers.set("Authorization", `Bearer ${typeof user === "string" ? user : user.key}`);
  const response = await SELF.fetch(`${ORIGIN}${MEDIA}/upload`, { method: "POST", headers, body: uploadForm(options) });
  return asApiResponse<UploadedMedia>(response);
}

/** Sends a raw upload body (any Content-Type, or a stream). */
export async function uploadRaw(
  user: TestUser,
  body: BodyInit | null,
  headers: Record<string, string> = {},
): Promise<ApiResponse<unknown>> {
  const response = await SELF.fetch(`${ORIGIN}${MEDIA}/upload`, {
    method: "POST",
    headers: { Authorization: `Bearer ${user.key}`, ...headers },
    body,
  });
  return asApiResponse(response);
}

/** Uploads a file; throws unless 201. */
export async function createMedia(user: TestUser, options: UploadOptions = {}): Promise<UploadedMedia> {
  const res = await uploadMedia(user, options);
  if (res.status !== 201) throw new Error(`media upload failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** GETs an absolute URL (a signed link) with no credential; the body as bytes. */
export async function fetchUrl(url: string, init: RequestInit = {}) {
  const response = await SELF.fetch(url, init);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  const isJson = response.headers.get("Content-Type")?.includes("application/json");
  return {
    status: response.status,
    headers: response.headers,
    bytes,
    json: isJson && text ? JSON.parse(text) : undefined,
  };
}

export const signedUrlOf = (user: TestUser, id: string, query = "") =>
  api<MediaSignedUrl>(`${MEDIA}/${id}/url${query ? `?${query}` : ""}`, { auth: user });

export const signedUrlOfPath = (user: TestUser, path: string, query = "") =>
  api<MediaSignedUrl>(`${MEDIA}/url?path=${encodeURIComponent(path)}${query ? `&${query}` : ""}`, { auth: user });

export const resolveMedia = (user: TestUser, body: unknown) =>
  api<ResolvedMediaUrl>(`${MEDIA}/resolve`, { method: "POST", auth: user, body });

/** A download: the bytes as a Uint8Array, or an error's parsed JSON envelope. */
async function download(path: string, options: RequestOptions): Promise<ApiResponse<Uint8Array>> {
  const res = await api<Uint8Array>(path, { ...options, raw: true });
  if (!res.headers.get("Content-Type")?.includes("application/json")) return res;
  return { ...res, body: JSON.parse(new TextDecoder().decode(res.body)) };
}

export const downloadByUrl = (user: TestUser | string, url: string) =>
  download(`${MEDIA}/download?url=${encodeURIComponent(url)}`, { auth: user });

export const downloadByBody = (user: TestUser, body: unknown) =>
  download(`${MEDIA}/download`, { method: "POST", auth: user, body });

export const getMetadata = (user: TestUser, id: string) =>
  api<MediaMetadata>(`${MEDIA}/${id}/metadata`, { auth: user });

export const patchMetadata = (user: TestUser, id: string, body: unknown, headers?: Record<string, string>) =>
  api<MediaMetadata>(`${MEDIA}/${id}/metadata`, { method: "PATCH", auth: user, body, headers });

export const deleteMedia = (user: TestUser, id: string) => api(`${MEDIA}/${id}`, { method: "DELETE", auth: user });

export const listMedia = (user: TestUser, query = "") =>
  api<MediaFile[]>(`${MEDIA}${query ? `?${query}` : ""}`, { auth: user });

export const searchMedia = (user: TestUser, query: string) =>
  api<MediaFile[]>(`${MEDIA}/search?${query}`, { auth: user });

/** A storage URL (`/storage/v1/object/<mode>/<bucket>/<path>`) on `origin`. */
export const storageUrl = (path: string, mode = "public", bucket = "media", origin = ORIGIN) =>
  `${origin}/storage/v1/object/${mode}/${bucket}/${path}`;

/** The media row straight from D1 (every state), or null. */
export const storedMedia = (id: string) =>
  env.DB.prepare("SELECT * FROM media WHERE id = ?").bind(id).first<MediaFile & { state: string; metadata: string }>();

/** Every media row of a user, whatever its state. */
export async function storedMediaOf(userId: string) {
  const { results } = await env.DB.prepare("SELECT * FROM media WHERE created_by = ? ORDER BY rowid")
    .bind(userId)
    .all<{ id: string; path: string; state: string }>();
  return results;
}

/** The keys of every R2 object in a user's folder. */
export async function objectsOf(userId: string): Promise<string[]> {
  const listed = await env.MEDIA.list({ prefix: `${userId}/` });
  return listed.objects.map((object) => object.key);
}

/** The bytes of an R2 object, or null. */
export async function objectBytes(path: string): Promise<Uint8Array | null> {
  const object = await env.MEDIA.get(path);
  return object ? new Uint8Array(await object.arrayBuffer()) : null;
}

/** What the owner sees of a file, and what is stored: unchanged by any refused request. */
export async function readMediaTarget(owner: TestUser, target: { id: string; path: string }) {
  const metadata = await getMetadata(owner, target.id);
  const row = await storedMedia(target.id);
  const object = await env.MEDIA.head(target.path);
  return { status: metadata.status, metadata: metadata.body, row, etag: object?.etag ?? null };
}

/** The auth-matrix target: the owner's uploaded file. */
export async function setupMediaTarget(owner: TestUser): Promise<UploadedMedia> {
  return createMedia(owner, { bytes: PNG_BYTES, name: "owner.png", type: "image/png", metadata: { owner: true } });
}
