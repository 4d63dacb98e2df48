// What an inline mention is: shared by the content schema (services/content/), the stored mentions
// (services/mentions/) and the request schemas. How mentions are written in markdown and HTML is
// services/content/mentions.ts.

export const MENTION_TARGET_TYPES = ["page", "block", "user", "date"] as const;
export type MentionTargetType = (typeof MENTION_TARGET_TYPES)[number];

/** What an inline mention refers to. */
export interface Mention {
  type: MentionTargetType;
  /** The page's, block's or user's id; for a date, the date (`2026-11-23`) or instant. */
  id: string;
}

/** The form of a date mention's id: a calendar date (`2026-11-23`) or an ISO-8601 instant. */
const DATE_MENTION =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const daysInMonth = (year: number, month: number) =>
  month === 2 ? (isLeapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/**
 * Whether `id` may be a date mention's: a calendar date (`2026-11-23`) or an ISO-8601 instant
 * (`2026-11-23T09:30:00Z`, `2026-11-23T09:30+01:00`) that exists: month 1 to 12, a day of that
 * month (February 29 in leap years only), hours 0 to 23, minutes and seconds 0 to 59, an offset
 * within ±23:59.
 */
export function isDateMention(id: string): boolean {
  const parts = DATE_MENTION.exec(id);
  if (!parts) return false;
  // A time, its seconds or an offset left out reads as 0.
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, offsetHours = 0, offsetMinutes = 0] = parts
    .slice(1)
    .map((part) => Number(part ?? 0));
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHours <= 23 &&
    offsetMinutes <= 59
  );
}
