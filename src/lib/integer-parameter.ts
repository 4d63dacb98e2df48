import { z } from "@hono/zod-openapi";

/** An integer as a URL spells it: decimal digits, a minus for a negative one, nothing else. */
const DECIMAL_INTEGER = /^-?\d{1,16}$/;

const NOT_AN_INTEGER = "Expected an integer in decimal digits";

/**
 * An integer in a query string or a path, within `bounds`. Only decimal digits are read as a
 * number: `0x10`, `1e3`, `5.0`, ` 5` and an empty value are refused, where JavaScript's `Number()`
 * (and so `z.coerce.number()`) would read them as 16, 1000, 5, 5 and 0. The contract shows an
 * integer (OpenAPI documents the schema the value is checked against).
 */
export const integerParameter = (bounds: (integer: z.ZodNumber) => z.ZodNumber = (integer) => integer) =>
  z.preprocess(
    (value) => (typeof value === "string" && DECIMAL_INTEGER.test(value) ? Number(value) : value),
    // The message for a value that is no number only: bounds keep zod's own (`Too small: expected number to be >=1`).
    bounds(z.number({ error: (issue) => (issue.code === "invalid_type" ? NOT_AN_INTEGER : undefined) }).int()),
  );
