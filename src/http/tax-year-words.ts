import { Decimal } from 'decimal.js';
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

/**
 * Money as the page shows it: whole figures (the form's boxes) as they are, any other amount to
 * 2 decimals, half up (the files keep every decimal): "£1,151", "£1,151.13", "-€0.50".
 */
export function moneyWords(value: string, currency: string): string {
  if (!value.includes('.')) return amountWords(value, currency);
  const rounded = new Decimal(value).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
  return amountWords(rounded.isZero() ? '0.00' : rounded.toFixed(2), currency);
}

/** Coins the page counts as money (their amounts to 2 decimals): the dollar stablecoins futures settle in. */
const MONEY_COINS = new Set(['USDT', 'USDC']);

/**
 * An amount of a coin: a stablecoin as money (2 decimals), any other coin to 8 decimals at most
 * (a satoshi), trailing zeros dropped: "12.50 USDT", "0.00012345 BTC".
 */
export function coinAmountWords(value: string, coin: string): string {
  if (MONEY_COINS.has(coin)) return moneyWords(value, coin);
  const rounded = new Decimal(value).toDecimalPlaces(8, Decimal.ROUND_HALF_UP);
  return amountWords(rounded.isZero() ? '0' : rounded.toFixed(), coin);
}

/**
 * An instant in the tax year's own zone, as the page writes it: "29 Nov 2026, 06:15 London time"
 * (a UK year is London's, a German one Berlin's; never UTC).
 */
export function momentWords(method: RulesMethod, ms: number): string {
  const zone = TAX_YEAR_ZONE[method];
  const place = zone.split('/').at(-1)!.replace(/_/g, ' ');
  return `${DateTime.fromMillis(ms, { zone }).toFormat('d LLL yyyy, HH:mm')} ${place} time`;
}

/** "unknown (3 sales)": a value the records do not give, never shown as 0. */
export function unknownWords(count: number | string, what: readonly [string, string]): string {
  const n = Number(count);
  return `unknown (${count} ${n === 1 ? what[0] : what[1]})`;
}

/** A record's instant in the year's own zone, to the second: "2026-04-23 18:02:49 London". */
export function recordTimeWords(method: RulesMethod, ms: number): string {
  const zone = TAX_YEAR_ZONE[method];
  return `${DateTime.fromMillis(ms, { zone }).toFormat('yyyy-MM-dd HH:mm:ss')} ${zone.split('/').at(-1)!.replace(/_/g, ' ')}`;
}
