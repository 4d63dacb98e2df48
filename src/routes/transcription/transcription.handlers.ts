import type { RouteHandler } from "@hono/zod-openapi";
import { transcribeRequest } from "../../services/transcription/transcribe";
import type * as routes from "./transcription.routes";

type Handler<R extends keyof typeof routes> = RouteHandler<(typeof routes)[R]>;

/** The upload is read from the raw request: multipart is not parsed by a validator. */
export const transcribe: Handler<"transcribe"> = async (c) =>
  c.json(await transcribeRequest(c.var.ctx, c.req.raw), 200);
