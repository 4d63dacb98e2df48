import { badRequest } from "./errors";

/**
 * Reads a field that the contract accepts in two spellings (`parent_id` / `parentId`).
 * Giving both with different values is a 400, never a silent choice.
 */
export function eitherSpelling<T>(body: Record<string, unknown>, snake: string, camel: string): T | undefined {
  const snakeValue = body[snake] as T | undefined;
  const camelValue = body[camel] as T | undefined;
  if (snakeValue !== undefined && camelValue !== undefined && snakeValue !== camelValue) {
    throw badRequest(`Give either ${snake} or ${camel}, not both with different values`, {
      [snake]: snakeValue,
      [camel]: camelValue,
    });
  }
  // Not `??`: an explicit null (clear the field) must survive, not fall through to the absent spelling.
  return snakeValue !== undefined ? snakeValue : camelValue;
}
