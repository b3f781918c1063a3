import { DateTime } from 'luxon';

import type { RulesMethod } from '../accounting/gains/gains-method.ts';
import { TAX_YEAR_ZONE, type TaxYear } from '../accounting/gains/tax-years.ts';

const day = (ms: number, method: RulesMethod, format: string) =>
  DateTime.fromMillis(ms, { zone: TAX_YEAR_ZONE[method] }).toFormat(format);

/**
 * A tax year as an accountant names it, with its first and last day (its own zone's dates):
 * "tax year 2025-26 (6 Apr 2025 - 5 Apr 2026)", "calendar year 2025 (1 Jan - 31 Dec 2025)".
 */
export function taxYearWords(method: RulesMethod, year: TaxYear): string {
  // The last day is the day before the next year's first instant.
  const last = year.endMs - 1;
  if (method === 'de')
    return `calendar year ${year.label} (${day(year.startMs, method, 'd LLL')} - ${day(last, method, 'd LLL yyyy')})`;
  return `tax year ${year.label} (${day(year.startMs, method, 'd LLL yyyy')} - ${day(last, method, 'd LLL yyyy')})`;
}

/** A date in the year's zone, as the page writes it: "28 Nov 2026". */
export function dayWords(method: RulesMethod, ms: number): string {
  return day(ms, method, 'd LLL yyyy');
}

/**
 * A whole or exact amount with thousands separators and its currency sign, the digits untouched
 * (the figure stays the file's: only commas are added): "£1,151", "-€10.25".
 */
export function amountWords(value: string, currency: string): string {
  const sign = value.startsWith('-') ? '-' : '';
  const [whole, fraction] = value.replace(/^-/, '').split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const symbol = currency === 'GBP' ? '£' : currency === 'EUR' ? '€' : '';
  const number = fraction === undefined ? grouped : `${grouped}.${fraction}`;
  return symbol ? `${sign}${symbol}${number}` : `${sign}${number} ${currency}`;
}
