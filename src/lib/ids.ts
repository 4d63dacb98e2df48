/** New block ids are UUIDs; callers may also supply their own. */
export const newId = (): string => crypto.randomUUID();
