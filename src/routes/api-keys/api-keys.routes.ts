import { z } from "@hono/zod-openapi";
import { paginationHeaders } from "../../lib/pagination";
import { defineRoute, ERROR_RESPONSES } from "../../openapi/define-route";
import { jsonBody, jsonContent, SuccessSchema } from "../../openapi/responses";
import { ApiKeySchema, CreatedApiKeySchema } from "../../schemas/api-keys";
import { ApiKeyParams, CreateApiKeyBody, ListApiKeysQuery, RenameApiKeyBody } from "./api-keys.schemas";

const tags = ["API keys"];
const base = "/api/v1/api-keys";

export const list = defineRoute({
  operationId: "listApiKeys",
  method: "get",
  path: base,
  tags,
  access: "session",
  summary: "The caller's API keys, masked",
  description:
    "The caller's keys that are not revoked, newest first: name, masked key (first characters and last four), scopes, created_at, last_used_at (updated at most once a minute) and expires_at; expired keys are listed with `expired: true`. Never a raw key or its hash. Needs an app session (an API key gets 403). Paginated like every listing.",
  request: { query: ListApiKeysQuery },
  responses: { 200: { ...jsonContent(z.array(ApiKeySchema), "One page of keys"), headers: paginationHeaders } },
});

export const create = defineRoute({
  operationId: "createApiKey",
  method: "post",
  path: base,
  tags,
  access: "session",
  location: "/api/v1/api-keys/{id}",
  summary: "Create an API key (its raw value is shown once)",
  description:
    "Creates a key for the caller and answers with its raw value (`key`, starting `sr_`) this once: only a hash is stored. `scopes` default to both `read` and `write`; a `read` key may only read (GET, HEAD and read-only queries) and gets 403 on anything else. `expires_at`, if given, must be in the future. A user holds at most 100 unrevoked keys (409 past that). Needs an app session (an API key gets 403).",
  request: { body: jsonBody(CreateApiKeyBody) },
  responses: { 201: jsonContent(CreatedApiKeySchema, "The new key, with its raw value"), 409: ERROR_RESPONSES[409] },
  secretResponse: true,
});

export const rename = defineRoute({
  operationId: "renameApiKey",
  method: "patch",
  path: `${base}/{id}`,
  tags,
  access: "session",
  summary: "Rename an API key",
  description: "Changes a key's name; nothing else about a key changes. Another user's or a revoked key is a 404.",
  request: { params: ApiKeyParams, body: jsonBody(RenameApiKeyBody) },
  responses: { 200: jsonContent(ApiKeySchema, "The key") },
});

export const revoke = defineRoute({
  operationId: "revokeApiKey",
  method: "delete",
  path: `${base}/{id}`,
  tags,
  access: "session",
  summary: "Revoke an API key",
  description:
    "Revokes a key: its next request is refused with 401 everywhere, at once. A revoked key is no longer listed; revoking it again (or another user's key) is a 404.",
  request: { params: ApiKeyParams },
  responses: { 200: jsonContent(SuccessSchema, "Revoked") },
});
