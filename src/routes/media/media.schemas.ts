import { z } from "@hono/zod-openapi";
import { digitGroups } from "../../lib/digit-groups";
import { integerParameter } from "../../lib/integer-parameter";
import { PaginationQuery } from "../../lib/pagination";
import { MEDIA_ID_DESCRIPTION } from "../../openapi/path-params";
import { MEDIA_METADATA_MAX_BYTES, MEDIA_METADATA_MAX_DEPTH } from "../../schemas/media";
import {
  DEFAULT_EXPIRES_IN_SECONDS,
  MAX_EXPIRES_IN_SECONDS,
  MEDIA_BUCKET,
  MIN_EXPIRES_IN_SECONDS,
} from "../../services/media/config";
import { FILENAME_MAX_CHARACTERS } from "../../services/media/upload-request";

const EXAMPLE_ID = "9b2f4c1e-5d3a-4e7b-8c6f-1a2b3c4d5e6f";
const EXAMPLE_USER = "0b9d6c1e-7a52-4a8e-9f0d-2b1f5c3e4a6d";
const EXAMPLE_PATH = `${EXAMPLE_USER}/${EXAMPLE_ID}-launch-photo.png`;
const EXAMPLE_STORAGE_URL = `https://abc.supabase.co/storage/v1/object/public/media/${EXAMPLE_PATH}`;

export const EXPIRES_IN_DESCRIPTION = `Lifetime of the signed URL in seconds: ${MIN_EXPIRES_IN_SECONDS} to ${digitGroups(MAX_EXPIRES_IN_SECONDS)} (7 days); default ${DEFAULT_EXPIRES_IN_SECONDS} (1 hour). Outside the bounds: 400`;

const expiresInBounds = (schema: z.ZodNumber) => schema.int().min(MIN_EXPIRES_IN_SECONDS).max(MAX_EXPIRES_IN_SECONDS);

const expiresInQuery = integerParameter(expiresInBounds)
  .optional()
  .openapi({ description: EXPIRES_IN_DESCRIPTION, example: DEFAULT_EXPIRES_IN_SECONDS });
const expiresInField = expiresInBounds(z.number())
  .optional()
  .openapi({ description: EXPIRES_IN_DESCRIPTION, example: DEFAULT_EXPIRES_IN_SECONDS });

const pathField = z.string().min(1).max(1024).openapi({
  description:
    "Where the object is: `<user_id>/<name>`, as written (no `.`/`..` or empty segments, no backslashes, no percent-escapes). Only the caller's own folder: another is a 404",
  example: EXAMPLE_PATH,
});
const bucketField = z
  .string()
  .min(1)
  .max(63)
  .openapi({ description: `The bucket: \`${MEDIA_BUCKET}\`, this service's only one`, example: MEDIA_BUCKET });
const urlField = z.string().min(1).max(8192).openapi({
  description:
    "A URL of this service's storage: a signed link (expired or not), or `/storage/v1/object/{public|sign|authenticated}/<bucket>/<path>` on this service's origin or on the configured storage origin (MEDIA_STORAGE_ORIGIN)",
  example: EXAMPLE_STORAGE_URL,
});

export const MediaIdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(128)
    .openapi({ param: { name: "id", in: "path" }, description: MEDIA_ID_DESCRIPTION, example: EXAMPLE_ID }),
});

export const ListMediaQuery = PaginationQuery.strict();

const isoInstant = z.iso.datetime({ offset: true });

export const SearchMediaQuery = PaginationQuery.extend({
  q: z
    .string()
    .max(200)
    .optional()
    .openapi({
      description:
        "Words that must each occur in the filename or in the metadata (its keys, text and number values), as substrings; ASCII letters match in either case. At most 10 words are used",
      examples: ["launch"],
    }),
  content_type: z
    .string()
    .max(255)
    .regex(/^[A-Za-z0-9!#$&^_.+-]+(\/[A-Za-z0-9!#$&^_.+-]*)?$/, "content_type must be a media type or its start")
    .optional()
    .openapi({ description: "Start of the content type: `image/`, `image/png`, `application/`", example: "image/" }),
  created_after: isoInstant.optional().openapi({
    description: "Only media uploaded after this instant (ISO-8601 with an offset or Z)",
    example: "2026-01-01T00:00:00Z",
  }),
  created_before: isoInstant.optional().openapi({
    description: "Only media uploaded before this instant (ISO-8601 with an offset or Z)",
    example: "2027-01-01T00:00:00Z",
  }),
}).strict();

export const SignedUrlQuery = z.object({ expiresIn: expiresInQuery }).strict();

export const PathUrlQuery = z
  .object({
    path: pathField.openapi({ param: { name: "path", in: "query" } }),
    bucket: bucketField.optional().openapi({ description: `The bucket (default \`${MEDIA_BUCKET}\`)` }),
    expiresIn: expiresInQuery,
  })
  .strict();

/** Exactly one of `url` or `bucket` with `path`. */
const oneLocation = (body: { url?: string; bucket?: string; path?: string }, ctx: z.core.$RefinementCtx) => {
  const byUrl = body.url !== undefined;
  const byLocation = body.bucket !== undefined || body.path !== undefined;
  if (byUrl === byLocation) {
    ctx.addIssue({ code: "custom", message: "Give either `url`, or `bucket` and `path`", path: [] });
  } else if (byLocation && (body.bucket === undefined || body.path === undefined)) {
    ctx.addIssue({
      code: "custom",
      message: "`bucket` and `path` go together",
      path: [body.bucket === undefined ? "bucket" : "path"],
    });
  }
};

export const ResolveMediaBody = z
  .strictObject({
    url: urlField.optional(),
    bucket: bucketField.optional(),
    path: pathField.optional(),
    expiresIn: expiresInField,
  })
  .superRefine(oneLocation)
  .openapi("ResolveMediaRequest", {
    description: "Either `{url}` (say, from an image block) or `{bucket, path}`; `expiresIn` with either",
    example: { url: EXAMPLE_STORAGE_URL, expiresIn: 3600 },
  });

export const DownloadQuery = z.object({ url: urlField.openapi({ param: { name: "url", in: "query" } }) }).strict();

export const DownloadMediaBody = z
  .strictObject({ url: urlField.optional(), bucket: bucketField.optional(), path: pathField.optional() })
  .superRefine(oneLocation)
  .openapi("DownloadMediaRequest", {
    description: "Either `{url}` or `{bucket, path}`",
    example: { bucket: MEDIA_BUCKET, path: EXAMPLE_PATH },
  });

export const MetadataPatchBody = z.record(z.string(), z.unknown()).openapi("MediaMetadataPatch", {
  description: `An RFC 7396 JSON merge patch of the metadata object: keys given replace, nested objects merge, \`null\` removes a key. The result must stay at most ${MEDIA_METADATA_MAX_BYTES / 1024} KiB, nested at most ${MEDIA_METADATA_MAX_DEPTH} levels`,
  example: { album: "Launch 2026", draft: null },
});

/** Not strict, unlike every other query: extra parameters (a mail's tracking ones) do not break a link. */
export const SignedMediaQuery = z.object({
  bucket: z.string().openapi({ description: "The bucket the link names, as signed", example: MEDIA_BUCKET }),
  path: z
    .string()
    .openapi({ description: "The object's path in the bucket (`<user_id>/<name>`), as signed", example: EXAMPLE_PATH }),
  expires: z.string().openapi({ description: "Unix seconds after which the link is refused", example: "1795426200" }),
  signature: z.string().openapi({
    description: "HMAC-SHA256 over the bucket, path and expiry, base64url",
    example: "3q2-7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
  }),
});

/** The upload body as the contract shows it (the handler reads it itself, holding the size limit while it reads). */
export const uploadBody = {
  required: true,
  content: {
    "multipart/form-data": {
      schema: {
        type: "object" as const,
        required: ["file"],
        properties: {
          file: { type: "string" as const, format: "binary", description: "The file (one part named `file`)" },
          filename: {
            type: "string" as const,
            maxLength: FILENAME_MAX_CHARACTERS,
            description: "Name to store instead of the file part's own",
            example: "launch-photo.png",
          },
          metadata: {
            type: "string" as const,
            description: `A JSON object as text (at most ${MEDIA_METADATA_MAX_BYTES / 1024} KiB)`,
            example: '{"album": "Launch"}',
          },
        },
      },
    },
    "application/json": {
      schema: {
        type: "object" as const,
        required: ["content_base64"],
        additionalProperties: false,
        properties: {
          content_base64: {
            type: "string" as const,
            format: "byte",
            description: "The file in base64 (small files: at most 10 MiB decoded; larger ones go as multipart)",
            example: "aGVsbG8gd29ybGQ=",
          },
          filename: {
            type: "string" as const,
            maxLength: FILENAME_MAX_CHARACTERS,
            description: "Default `file`",
            example: "hello.txt",
          },
          content_type: { type: "string" as const, description: "The declared type", example: "text/plain" },
          metadata: { type: "object" as const, description: "A JSON object", example: { album: "Launch" } },
        },
      },
    },
  },
};
