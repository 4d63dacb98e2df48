import { createRouter } from "../../openapi/define-route";
import * as handlers from "./transcription.handlers";
import * as routes from "./transcription.routes";

export const transcriptionRouter = createRouter().openapi(routes.transcribe, handlers.transcribe);
