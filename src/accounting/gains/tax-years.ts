import { DateTime } from 'luxon';

import { cachedTimeZone } from '../../vocabulary/cached-time-zone.ts';
import { DE_ZONE, deYear } from './de-private-sales.ts';
import type { RulesMethod } from './gains-method.ts';
import { UK_ZONE, ukTaxYear } from './uk-day.ts';

/**
 * The tax years a filing summary walks (docs/reports.md, "Whole tax years"):
 * - `uk`: 6 April to 5 April, London dates (HMRC, "Tax year"; TCGA 1992 s288 "year of assessment",
 *   ITA 2007 s4: "a year beginning on 6 April");
 * - `de`: the calendar year, Berlin dates (EStG section 2 (7): the Veranlagungszeitraum is the
 *   calendar year; section 25 (1)).
 * A year is `complete` when the requested period holds all of it: the period's half-open UTC
 * interval covers the year's first instant to the next year's first, both in the year's own zone.
 * A period asked for in another zone (UTC, say) misses an hour of a London or Berlin year, and
 * says so: a figure of part of a tax year is not that year's figure.
 */
export interface TaxYear {
  /** `2024-25` (uk) or `2024` (de). */
  readonly label: string;
  /** First instant of the year (inclusive), UTC ms. */
  readonly startMs: number;
  /** First instant after the year (exclusive), UTC ms. */
  readonly endMs: number;
  /** The period holds the whole year. */
  readonly complete: boolean;
}

export const TAX_YEAR_ZONE: Readonly<Record<RulesMethod, string>> = { uk: UK_ZONE, de: DE_ZONE };

/** The first instant of the tax year an instant falls in. */
function yearStart(method: RulesMethod, atMs: number): DateTime {
  const day = DateTime.fromMillis(atMs, { zone: cachedTimeZone(TAX_YEAR_ZONE[method]) });
  if (method === 'de') return day.startOf('year');
  const startYear = day.month > 4 || (day.month === 4 && day.day >= 6) ? day.year : day.year - 1;
  return DateTime.fromObject({ year: startYear, month: 4, day: 6 }, { zone: UK_ZONE });
}

function label(method: RulesMethod, start: DateTime): string {
  if (method === 'de') return String(start.year);
  return `${start.year}-${String((start.year + 1) % 100).padStart(2, '0')}`;
}

/**
 * The tax year an instant counts in: ukTaxYear / deYear, the label taxYearsOf gives the year
 * (yearStart's year, then label). The summaries ask it of every event, so it reads their
 * remembered dates (local-day.ts) instead of making and moving a DateTime to the year's start.
 */
export function taxYearOf(method: RulesMethod, atMs: number): string {
  return method === 'de' ? String(deYear(atMs)) : ukTaxYear(atMs);
}

/** Every tax year the half-open period [startMs, endMs) touches, oldest first, each with its completeness. */
export function taxYearsOf(method: RulesMethod, startMs: number, endMs: number): TaxYear[] {
  const years: TaxYear[] = [];
  if (endMs <= startMs) return years;
  for (let start = yearStart(method, startMs); start.toMillis() < endMs; start = start.plus({ years: 1 })) {
    const next = start.plus({ years: 1 });
    years.push({
      label: label(method, start),
      startMs: start.toMillis(),
      endMs: next.toMillis(),
      complete: startMs <= start.toMillis() && endMs >= next.toMillis(),
    });
  }
  return years;
}

/** Whether a period is made of whole tax years only (what a filing summary's manifest states as `complete`). */
export function wholeTaxYears(method: RulesMethod, startMs: number, endMs: number): boolean {
  const years = taxYearsOf(method, startMs, endMs);
  return years.length > 0 && years.every((y) => y.complete);
}
