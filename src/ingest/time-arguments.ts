import { DateTime } from 'luxon';

import { ValidationError } from '../errors/index.ts';

/** The first instant ledgerline accepts: the exchange's history starts long after it. */
export const EARLIEST_INSTANT = 0;
/** The last instant of the year 9999: Postgres, Luxon and ISO 8601 all write later years differently. */
export const LATEST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
/** UTC offsets in use anywhere lie within +-14:00 (Kiribati); more is a typing mistake. */
const MAX_OFFSET_MINUTES = 14 * 60;

const FORMS = 'a date (YYYY-MM-DD, UTC), a date-time with offset (2026-01-31T12:00:00Z) or Unix milliseconds';

/**
 * A time given on the command line: an ISO date (`2026-01-31`, UTC midnight)
 * or an ISO date-time with an offset or Z (`2026-01-31T12:00:00Z`), or Unix ms.
 * Every refusal names the field the user typed, never a parameter further down.
 */
export function parseInstant(field: string, value: string): number {
  const text = value.trim();
  // Fewer digits are more likely a mistyped date (20260131) than an instant of January 1970.
  if (/^\d{11,}$/.test(text)) return inRange(field, value, Number(text));
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const date = DateTime.fromISO(text, { zone: 'utc' });
    if (date.isValid) return inRange(field, value, date.toMillis());
  } else if (/^\d{4}-\d{2}-\d{2}T.+(Z|[+-]\d{2}:?\d{2})$/.test(text)) {
    const date = DateTime.fromISO(text, { setZone: true });
    if (date.isValid) {
      if (Math.abs(date.offset) > MAX_OFFSET_MINUTES) {
        throw new ValidationError(field, 'must have a UTC offset from -14:00 to +14:00', value);
      }
      return inRange(field, value, date.toMillis());
    }
  }
  throw new ValidationError(field, `must be ${FORMS}`, value);
}

function inRange(field: string, value: string, ms: number): number {
  // Digits past 2^53 are silently rounded by Number: refused before they become another instant.
  if (!Number.isSafeInteger(ms) || ms < EARLIEST_INSTANT || ms > LATEST_INSTANT) {
    throw new ValidationError(field, 'must be a time in the years 1970 to 9999 (UTC)', value);
  }
  return ms;
}

export function formatInstant(ms: number): string {
  return DateTime.fromMillis(ms, { zone: 'utc' }).toISO({ suppressMilliseconds: true }) ?? String(ms);
}
