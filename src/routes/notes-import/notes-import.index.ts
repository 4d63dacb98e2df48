import { createRouter } from "../../openapi/define-route";
import * as handlers from "./notes-import.handlers";
import * as routes from "./notes-import.routes";

export const notesImportRouter = createRouter().openapi(routes.importNotes, handlers.importNotes);
