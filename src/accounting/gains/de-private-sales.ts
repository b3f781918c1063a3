import type { Decimal } from 'decimal.js';

import { localDay } from '../../vocabulary/local-day.ts';

/** German rules count calendar days in Germany: dates are Berlin's. */
export const DE_ZONE = 'Europe/Berlin';

/**
 * The Berlin date of an instant, remembered per hour (local-day.ts): every gains row asks for two,
 * and comparing dates by their ordinals gives what luxon's start-of-day instants, diff and compare
 * gave, at a fraction of the cost.
 */
const day = (ms: number) => localDay(DE_ZONE, ms);

/** The calendar year (Berlin) a disposal or an income falls in: the German tax year. */
export function deYear(atMs: number): number {
  return day(atMs).year;
}

/** Calendar days from the acquisition's date to the disposal's (Berlin dates). */
export function daysHeld(acquiredAtMs: number, disposedAtMs: number): number {
  return day(disposedAtMs).ordinal - day(acquiredAtMs).ordinal;
}

/**
 * Whether a private sale is taxable: section 23 (1) sentence 1 no. 2 EStG taxes a sale when "the
 * period between acquisition and sale is not more than one year". The year runs from the day after
 * the acquisition to the same date a year later (sections 187 (1), 188 (2) BGB; 29 February: the
 * 28th, section 188 (3)), so a sale on that date is still taxable and one a day later is not.
 */
export function taxableSale(acquiredAtMs: number, disposedAtMs: number): boolean {
  return day(disposedAtMs).ordinal <= day(acquiredAtMs).ordinalYearLater;
}

/**
 * The Freigrenze for private sales (section 23 (3) sentence 5 EStG): gains of a calendar year stay
 * tax-free when the year's total is LESS than it; reaching it makes all of them taxable (a limit,
 * not an allowance). EUR 600 up to 2023, EUR 1,000 from 2024 (Wachstumschancengesetz 2024).
 */
export function privateSalesFreigrenze(year: number): number {
  return year >= 2024 ? 1000 : 600;
}

/** The Freigrenze for other income such as staking, lending and rewards (section 22 no. 3 EStG): EUR 256. */
export const INCOME_FREIGRENZE = 256;

/** Whether a year's total stays under a Freigrenze (tax-free) or reaches it (all taxable). */
export function belowFreigrenze(total: Decimal, limit: number): boolean {
  return total.lt(limit);
}
