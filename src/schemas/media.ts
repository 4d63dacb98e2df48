import { z } from "@hono/zod-openapi";

// The media resources: the one zod source of their TypeScript types, their OpenAPI components,
// and the types tests and the benchmark use.

const EXAMPLE_ID = "9b2f4c1e-5d3a-4e7b-8c6f-1a2b3c4d5e6f";
const EXAMPLE_USER = "0b9d6c1e-7a52-4a8e-9f0d-2b1f5c3e4a6d";
const EXAMPLE_PATH = `${EXAMPLE_USER}/${EXAMPLE_ID}-launch-photo.png`;
const EXAMPLE_TIME = "2026-11-23T09:30:00.000Z";
const EXAMPLE_SIGNED_URL = `https://workspace.example.com/media/signed?bucket=media&path=${encodeURIComponent(EXAMPLE_PATH)}&expires=1795426200&signature=3q2-7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;

/** Metadata: a JSON object, at most 16 KiB as JSON text. */
export const MEDIA_METADATA_MAX_BYTES = 16 * 1024;
/** Nesting a metadata object may have. */
export const MEDIA_METADATA_MAX_DEPTH = 32;

const metadataField = z.record(z.string(), z.unknown()).openapi({
  description: `Free-form JSON object (at most ${MEDIA_METADATA_MAX_BYTES / 1024} KiB as JSON text)`,
  example: { alt: "The team at the launch", album: "Launch" },
});

export const MediaFileSchema = z
  .object({
    id: z.string().openapi({ example: EXAMPLE_ID }),
    bucket: z.string().openapi({ description: "The storage bucket's public name", example: "media" }),
    path: z.string().openapi({
      description: "Where the object is in the bucket: `<user_id>/<unique name>`",
      example: EXAMPLE_PATH,
    }),
    filename: z.string().openapi({ description: "The name it was uploaded with", example: "launch-photo.png" }),
    content_type: z.string().openapi({
      description: "Taken from the bytes (magic numbers) when the declared type disagrees",
      example: "image/png",
    }),
    size: z.number().int().openapi({ description: "Bytes", example: 48213 }),
    sha256: z.string().openapi({
      description: "SHA-256 of the bytes, hex",
      example: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    }),
    metadata: metadataField,
    created_by: z.string().openapi({ example: EXAMPLE_USER }),
    created_at: z.string().openapi({ format: "date-time", example: EXAMPLE_TIME }),
    updated_at: z.string().openapi({
      format: "date-time",
      description: "Last change of the record (its metadata)",
      example: EXAMPLE_TIME,
    }),
  })
  .openapi("MediaFile");

export type MediaFile = z.infer<typeof MediaFileSchema>;

const signedUrlField = z.string().openapi({
  format: "uri",
  description: "Fetches the bytes with no credential until `expires_at`",
  example: EXAMPLE_SIGNED_URL,
});
const expiresAtField = z.string().openapi({ format: "date-time", example: "2026-11-23T10:30:00.000Z" });

export const UploadedMediaSchema = MediaFileSchema.extend({
  signedUrl: signedUrlField,
  expires_at: expiresAtField,
}).openapi("UploadedMedia");

export type UploadedMedia = z.infer<typeof UploadedMediaSchema>;

export const MediaSignedUrlSchema = z
  .object({
    signed: z.literal(true).openapi({ example: true }),
    signedUrl: signedUrlField,
    url: signedUrlField.openapi({ description: "The same signed URL" }),
    expires_at: expiresAtField,
    id: z.string().openapi({ example: EXAMPLE_ID }),
    bucket: z.string().openapi({ example: "media" }),
    path: z.string().openapi({ example: EXAMPLE_PATH }),
  })
  .openapi("MediaSignedUrl");

export type MediaSignedUrl = z.infer<typeof MediaSignedUrlSchema>;

export const UnsignedUrlSchema = z
  .object({
    signed: z.literal(false).openapi({ example: false }),
    signedUrl: z.null().openapi({ example: null }),
    url: z.string().openapi({
      description: "The URL as given: not this service's storage",
      example: "https://images.example.org/cat.png",
    }),
    expires_at: z.null().openapi({ example: null }),
  })
  .openapi("UnsignedUrl");

export const ResolvedMediaUrlSchema = z.union([MediaSignedUrlSchema, UnsignedUrlSchema]).openapi("ResolvedMediaUrl", {
  description:
    "A fresh signed URL for one of this service's objects (`signed: true`), or any other URL unchanged (`signed: false`)",
});

export type ResolvedMediaUrl = z.infer<typeof ResolvedMediaUrlSchema>;

export const MediaMetadataSchema = z
  .object({
    id: z.string().openapi({ example: EXAMPLE_ID }),
    metadata: metadataField,
    updated_at: z.string().openapi({ format: "date-time", example: EXAMPLE_TIME }),
  })
  .openapi("MediaMetadata");

export type MediaMetadata = z.infer<typeof MediaMetadataSchema>;

export const DeleteMediaResponseSchema = z
  .object({
    success: z.boolean().openapi({ example: true }),
    message: z.string().openapi({ example: "Media deleted" }),
    id: z.string().openapi({ example: EXAMPLE_ID }),
  })
  .openapi("DeleteMediaResponse");
