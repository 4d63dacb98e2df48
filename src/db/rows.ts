import type { Column, Table } from "drizzle-orm";

// The records raw SQL reads return (`SELECT t.*`, `RETURNING *`, or some of their columns), derived
// from the tables of schema.ts, which npm run check holds to the migrated database: a column a
// migration adds is in these types, or the check fails.

/** What D1 returns for `column`: booleans as SQLite's 0/1, null where the column allows it. */
type RawValue<C extends Column> =
  | (C["_"]["dataType"] extends "boolean" ? number : C["_"]["data"])
  | (C["_"]["notNull"] extends true ? never : null);

/** Every column of `T` under its SQL name, as a raw read returns it (JSON as text, flags as 0/1). */
type RawColumns<T extends Table> = {
  [K in keyof T["_"]["columns"] as T["_"]["columns"][K]["_"]["name"]]: RawValue<T["_"]["columns"][K]>;
};

/** Narrower types for some columns of `T`: each key a column, each type one its values have. */
type Narrowing<T extends Table, N> = { [K in keyof N]: K extends keyof RawColumns<T> ? RawColumns<T>[K] : never };

/**
 * A row of `T` as a raw read returns it, the columns `N` names read as the narrower types the code
 * writes there (`RawRow<typeof reminders, { channel: "push" | "in_app" }>`). Pick from it for a read
 * of some of its columns.
 */
export type RawRow<T extends Table, N extends Narrowing<T, N> = Record<never, never>> = {
  [K in keyof RawColumns<T>]: K extends keyof N ? N[K] : RawColumns<T>[K];
};
