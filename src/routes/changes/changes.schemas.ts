import { z } from "@hono/zod-openapi";
import { integerParameter } from "../../lib/integer-parameter";
import { PaginationQuery } from "../../lib/pagination";
import { BLOCK_ID_DESCRIPTION } from "../../openapi/path-params";
import { CHANGE_EVENT_TYPES, type ChangeEventType } from "../../schemas/changes";

const isEventType = (name: string): name is ChangeEventType => (CHANGE_EVENT_TYPES as readonly string[]).includes(name);

/** `types=a,b`: the event types to keep, each one of the contract's. */
const EventTypes = z
  .string()
  .min(1)
  .max(500)
  .transform((value, context) => {
    const names = value.split(",").map((name) => name.trim());
    const unknown = names.filter((name) => !isEventType(name));
    if (unknown.length > 0) {
      context.addIssue({
        code: "custom",
        message: `Unknown event type ${unknown.map((name) => `'${name}'`).join(", ")}: one of ${CHANGE_EVENT_TYPES.join(", ")}`,
      });
      return z.NEVER;
    }
    return names as ChangeEventType[];
  })
  .openapi({
    type: "string",
    description: `Comma-separated event types to keep (all when absent): ${CHANGE_EVENT_TYPES.join(", ")}. A cursor continues the types it was given with.`,
    example: "block.created,block.updated",
  });

export const ChangesQuery = PaginationQuery.extend({
  types: EventTypes.optional(),
  since: z.enum(["now"]).optional().openapi({
    description:
      "`now`: start at the newest change instead of the oldest kept one. Answers no events, `X-Has-More: false` and the `X-Next-Cursor` to poll from. Not with `cursor` or `offset`.",
    example: "now",
  }),
});

export const HistoryQuery = PaginationQuery;

export const RestoreParams = z.object({
  id: z
    .string()
    .min(1)
    .max(128)
    .openapi({
      param: { name: "id", in: "path" },
      description: BLOCK_ID_DESCRIPTION,
      example: "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d",
    }),
  event_id: integerParameter((integer) => integer.min(1)).openapi({
    param: { name: "event_id", in: "path" },
    description: "The `event_id` of a version in the block's history",
    example: 4711,
  }),
});
