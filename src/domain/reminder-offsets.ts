/**
 * When to be reminded of a date, relative to its start: the offsets date property values,
 * reminders and parsed quick tasks name (the contract elides the middle of the list; this is ours).
 */
export const REMINDER_OFFSETS = [
  "none",
  "at_time",
  "5_minutes_before",
  "10_minutes_before",
  "15_minutes_before",
  "30_minutes_before",
  "1_hour_before",
  "2_hours_before",
  "1_day_before",
  "2_days_before",
  "1_week_before",
  "inherit",
] as const;
