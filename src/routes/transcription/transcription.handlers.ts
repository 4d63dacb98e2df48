import type { Handler } from "../../openapi/define-route";
import { transcribeRequest } from "../../services/transcription/transcribe";
import type * as routes from "./transcription.routes";

/** The upload is read from the raw request: multipart is not parsed by a validator. */
export const transcribe: Handler<typeof routes.transcribe> = async (c) =>
  c.json(await transcribeRequest(c.get("ctx"), c.req.raw), 200);
