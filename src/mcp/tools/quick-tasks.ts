import { z } from "@hono/zod-openapi";
import { countAgainstLimit } from "../../openapi/define-route";
import { CREATE_RATE_LIMIT } from "../../routes/quick-tasks/quick-tasks.schemas";
import { QuickTaskBody } from "../../schemas/quick-tasks";
import { createQuickTask } from "../../services/quick-tasks/quick-tasks";
import { defineTool } from "../tool";

// The quick-task path as POST /api/v1/tasks/from-natural-language serves it.

export const captureTaskTool = defineTool({
  name: "capture_task",
  title: "Capture a task",
  description:
    "Turns a sentence into a task row (title, due date or time, priority, notes after ` -- `, a reminder offset such as 'remind me 30 minutes before') in the caller's task database: the saved one, else the built-in Tasks database. Dates and times are read in `timezone`.",
  scope: "write",
  input: z.strictObject({ text: QuickTaskBody.shape.text, timezone: QuickTaskBody.shape.timezone }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(ctx, input) {
    // The REST create's own limit, on its counter: a model call costs the same whichever way it came.
    await countAgainstLimit(ctx.env, CREATE_RATE_LIMIT, CREATE_RATE_LIMIT.counter, `user:${ctx.actor.userId}`);
    const created = await createQuickTask(ctx, input);
    const { parse, target_database: database } = created;
    const due = parse.due_at ?? parse.due_date;
    const facts = [
      due ? `due ${due}` : null,
      parse.priority ? `${parse.priority} priority` : null,
      created.reminder ? `reminder ${parse.reminder_offset}` : null,
    ].filter(Boolean);
    const unclear = parse.ambiguities.map(
      (ambiguity) =>
        `- ${ambiguity.field}: "${ambiguity.text}"${ambiguity.alternatives.length > 0 ? ` (or ${ambiguity.alternatives.join(", ")})` : ""}`,
    );
    return {
      text: [
        `Created task "${parse.title}" (id ${created.task.id}) in ${database.title} (id ${database.id})${facts.length > 0 ? `: ${facts.join(", ")}` : ""}.`,
        ...(unclear.length > 0 ? ["Unclear:", ...unclear] : []),
      ].join("\n"),
      structured: { ...created },
    };
  },
});
