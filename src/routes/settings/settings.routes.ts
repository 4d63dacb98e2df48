import { defineRoute, ERROR_RESPONSES } from "../../openapi/define-route";
import { jsonBody, jsonContent } from "../../openapi/responses";
import { SettingsSchema, UpdateSettingsBody } from "../../schemas/settings";

const tags = ["Settings"];
const path = "/api/v1/settings";

const FIELDS =
  "`quickTaskProvider` and `quickTaskModel` choose the structured-output model that parses quick tasks (over the server's TASK_CAPTURE_PROVIDER and TASK_CAPTURE_MODEL; `quickTaskParser` says which one a request would use, or why the local parser answers instead), `quickTaskDatabaseId` where quick tasks go when a request names no database, `quickTaskSkipPreview` whether a preview request marked `preview=1` creates at once.";

export const get = defineRoute({
  operationId: "getSettings",
  entityTag: "read",
  method: "get",
  path,
  tags,
  access: "user",
  summary: "Get your settings",
  description: `The caller's workspace settings; defaults (nulls, false) until first changed. ${FIELDS}`,
  responses: { 200: jsonContent(SettingsSchema, "The caller's settings") },
});

export const update = defineRoute({
  operationId: "updateSettings",
  entityTag: "write",
  method: "patch",
  path,
  tags,
  access: "user",
  summary: "Change your settings",
  description: `Changes the fields given (at least one); \`null\` clears a field. ${FIELDS} \`quickTaskProvider\` must be one of openai, anthropic, gemini, mistral and groq, or openai-compatible where this server has OPENAI_COMPATIBLE_BASE_URL (400, \`details.allowed\`); the server's key of that provider is what the call uses. \`quickTaskDatabaseId\` must be a database the caller can see, neither archived nor in the trash (404).`,
  request: { body: jsonBody(UpdateSettingsBody) },
  responses: {
    200: jsonContent(SettingsSchema, "The settings after the change"),
    404: ERROR_RESPONSES[404],
  },
});
