import { Temporal } from "temporal-polyfill";

// Wall-clock arithmetic in a reminder's zone: a due time keeps its local distance from each
// occurrence. Used by the presenter (a reminder's due_at) and the state rules (an occurrence
// whose due time would fall past the range is no occurrence).

const wallClock = (epochMs: number, timeZone: string) =>
  Temporal.Instant.fromEpochMilliseconds(epochMs).toZonedDateTimeISO(timeZone).toPlainDateTime();

/** How far `to` is from `from` on the wall clock of `timeZone` (DST changes between them do not count). */
export const localDistanceMs = (from: number, to: number, timeZone: string): number =>
  wallClock(from, timeZone).until(wallClock(to, timeZone), { largestUnit: "hours" }).total({ unit: "milliseconds" });

/** `epochMs` moved by a wall-clock distance in `timeZone`; a local time that does not exist moves forward by the gap. */
export const addLocalMs = (epochMs: number, distanceMs: number, timeZone: string): number =>
  wallClock(epochMs, timeZone)
    .add({ milliseconds: distanceMs })
    .toZonedDateTime(timeZone, { disambiguation: "compatible" }).epochMilliseconds;
