import { Temporal } from "temporal-polyfill";

// IANA time zones, in which reminders and quick tasks read dates and times.

/** True for an IANA time zone name the runtime knows ("Europe/Paris", "UTC"); false for anything else, never throws. */
export function isTimeZone(name: string): boolean {
  // Temporal also takes offsets ("+01:00") as zones; those are not IANA names.
  if (typeof name !== "string" || !/^[A-Za-z]/.test(name)) return false;
  try {
    new Temporal.ZonedDateTime(0n, name);
    return true;
  } catch {
    return false;
  }
}
