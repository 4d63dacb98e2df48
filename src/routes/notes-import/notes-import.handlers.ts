import type { Handler } from "../../openapi/define-route";
import { importNotes as sendToNotesTool } from "../../services/notes-import/notes-import";
import type * as routes from "./notes-import.routes";

export const importNotes: Handler<typeof routes.importNotes> = async (c) =>
  c.json(await sendToNotesTool(c.get("ctx"), c.req.valid("json")), 200);
