import { DateTime } from 'luxon';

import { cachedTimeZone } from '../../vocabulary/cached-time-zone.ts';

/** UK rules count days on the UK calendar: a "day" is a London date, whatever the report's zone. */
export const UK_ZONE = 'Europe/London';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The London date of an instant, `yyyy-MM-dd`. */
export function ukDate(atMs: number): string {
  return DateTime.fromMillis(atMs, { zone: cachedTimeZone(UK_ZONE) }).toISODate()!;
}

/** A date's ordinal (days since 1970-01-01), so that "within 30 days after" is plain subtraction. */
export function dayOrdinal(isoDate: string): number {
  return Math.round(DateTime.fromISO(isoDate, { zone: 'utc' }).toMillis() / DAY_MS);
}

/**
 * The UK tax year an instant falls in, named by its two calendar years (`2024-25`): it runs from
 * 6 April to 5 April (HMRC, "Tax year"), on London dates.
 */
export function ukTaxYear(atMs: number): string {
  const day = DateTime.fromMillis(atMs, { zone: cachedTimeZone(UK_ZONE) });
  const startYear = day.month > 4 || (day.month === 4 && day.day >= 6) ? day.year : day.year - 1;
  return `${startYear}-${String((startYear + 1) % 100).padStart(2, '0')}`;
}
