import { localDay } from '../../vocabulary/local-day.ts';

/** UK rules count days on the UK calendar: a "day" is a London date, whatever the report's zone. */
export const UK_ZONE = 'Europe/London';

/*
 * The matching and the rows ask for the London date of every event; local-day.ts remembers it per
 * hour instead of making a luxon DateTime (and parsing its ISO date back) each time.
 */

/** The London date of an instant, `yyyy-MM-dd`. */
export function ukDate(atMs: number): string {
  return localDay(UK_ZONE, atMs).isoDate;
}

/** The ordinal (days since 1970-01-01) of an instant's London date, so that "within 30 days after" is plain subtraction. */
export function ukDayOrdinal(atMs: number): number {
  return localDay(UK_ZONE, atMs).ordinal;
}

/**
 * The UK tax year an instant falls in, named by its two calendar years (`2024-25`): it runs from
 * 6 April to 5 April (HMRC, "Tax year"), on London dates.
 */
export function ukTaxYear(atMs: number): string {
  const day = localDay(UK_ZONE, atMs);
  const startYear = day.month > 4 || (day.month === 4 && day.day >= 6) ? day.year : day.year - 1;
  return `${startYear}-${String((startYear + 1) % 100).padStart(2, '0')}`;
}
