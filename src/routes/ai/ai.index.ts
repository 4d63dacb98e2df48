import { createRouter } from "../../openapi/define-route";
import * as handlers from "./ai.handlers";
import * as routes from "./ai.routes";

export const aiRouter = createRouter()
  .openapi(routes.stream, handlers.stream, handlers.streamHook)
  .openapi(routes.promptOpenAi, handlers.promptOpenAi)
  .openapi(routes.promptAnthropic, handlers.promptAnthropic)
  .openapi(routes.promptGemini, handlers.promptGemini)
  .openapi(routes.promptMistral, handlers.promptMistral)
  .openapi(routes.promptGroq, handlers.promptGroq);
