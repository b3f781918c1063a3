import {
  FILING_CURRENCY,
  type GainsMethod,
  isRulesMethod,
  parseGainsMethod,
} from '../accounting/gains/gains-method.ts';
import { TAX_YEAR_ZONE } from '../accounting/gains/tax-years.ts';
import { DEFAULT_LONG_TERM_DAYS } from '../accounting/lots/lot-method.ts';
import { coinCode } from '../accounting/prices/price-point.ts';
import { ValidationError } from '../errors/index.ts';
import { REPORT_NAMES, type ReportName } from '../vocabulary/report-names.ts';
import { parsePeriod, type Period } from './period.ts';
import type { ReportParams } from './report-definition.ts';
import { reportByName, reportFor } from './reports/index.ts';

/** A fully validated export: which report, which account, which period, which options. */
export interface ExportRequest {
  readonly report: ReportName;
  readonly accountId: string;
  readonly period: Period;
  readonly coin?: string | undefined;
  readonly includePending?: boolean | undefined;
  /** Lot-matching reports only (realized-gains, its summary, income-summary): always set for them. */
  readonly method?: GainsMethod | undefined;
  readonly longTermDays?: number | undefined;
  /**
   * The currency values are stated in, when the request names one (--valuation) or its method's
   * rules do (uk: GBP, de: EUR); undefined: the installation's VALUATION_CURRENCY.
   */
  readonly valuationCurrency?: string | undefined;
}

/** The same request as plain strings: what a job payload, a form or the command line carries. */
export interface ExportRequestInput {
  report?: string;
  accountId?: string;
  from?: string;
  to?: string;
  tz?: string;
  coin?: string;
  includePending?: boolean;
  /** fifo, lifo, hifo, average, uk or de (lot-matching reports; default fifo). */
  method?: string;
  /** Whole days after which a holding is long-term (lot-matching reports; default 365). */
  longTermDays?: string;
  /** The valuation currency, e.g. GBP (reports that value coins; default: the setting). */
  valuation?: string;
}

// A century: beyond it the split says nothing (and the number stays a small integer).
const MAX_LONG_TERM_DAYS = 36_525;
const WHOLE = /^\d{1,6}$/;

// No '_' or '.': the coin is part of the file name, whose parts '_' separates.
const COIN = /^[A-Z0-9][A-Z0-9-]{0,31}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

const TEXT_FIELDS = ['report', 'accountId', 'from', 'to', 'tz', 'coin', 'method', 'longTermDays', 'valuation'] as const;

/** Validates everything before any query runs; each failure names its field. */
export function parseExportRequest(input: ExportRequestInput): ExportRequest {
  // A form or query string repeating a field, or a JSON payload, can carry anything but text.
  for (const name of TEXT_FIELDS) {
    const value: unknown = input[name];
    if (value !== undefined && typeof value !== 'string') {
      throw new ValidationError(name, 'must be given once, as text');
    }
  }
  const report = reportByName(input.report);
  if (!input.accountId || !isUuid(input.accountId)) {
    throw new ValidationError('accountId', 'must be an account id (uuid)', input.accountId);
  }
  const lots = report.accepts.lots === true;
  const method = lots ? parseGainsMethod(input.method) : undefined;
  // A filing summary walks its method's tax years, whose days are London's or Berlin's: with no
  // zone asked for, its dates are read there, so 2024-04-06..2025-04-05 is a whole tax year.
  const taxYears = isRulesMethod(method) ? reportFor(report.name, method).taxYears : undefined;
  const tz = input.tz === undefined || input.tz.trim() === '' ? taxYears && TAX_YEAR_ZONE[taxYears] : input.tz;
  const period = parsePeriod({ from: input.from, to: input.to, tz });
  // The exchange's coin symbols are upper case: `btc` means BTC, not an empty report.
  const coin = input.coin?.trim().toUpperCase() || undefined;
  if (coin !== undefined && !COIN.test(coin)) {
    throw new ValidationError('coin', 'must be a coin symbol (letters, digits and -; at most 32)', input.coin);
  }
  // The journal must hold every coin to balance: a coin filter is refused rather than ignored.
  if (coin !== undefined && !report.accepts.coin) {
    throw new ValidationError('coin', `does not apply to ${report.name}`, input.coin);
  }
  if (input.includePending && !report.accepts.includePending) {
    throw new ValidationError('pending', `applies only to broker-transfers, not to ${report.name}`);
  }
  if (!lots) {
    for (const name of ['method', 'longTermDays'] as const) {
      if (input[name] !== undefined && input[name].trim() !== '') {
        throw new ValidationError(
          name,
          `applies only to realized-gains, realized-gains-summary and income-summary, not to ${report.name}`,
        );
      }
    }
  }
  return Object.freeze({
    report: report.name as ReportName,
    accountId: input.accountId.toLowerCase(),
    period,
    coin,
    includePending: report.accepts.includePending ? Boolean(input.includePending) : undefined,
    method,
    longTermDays: lots ? parseLongTermDays(input.longTermDays) : undefined,
    valuationCurrency: parseValuation(input.valuation, method, report.accepts.valuation === true, report.name),
  });
}

/**
 * --valuation: a currency code the price book can value in (through a quote if need be). Under a
 * jurisdiction's rules the currency is theirs: given another, it is refused rather than converted.
 */
function parseValuation(
  value: string | undefined,
  method: GainsMethod | undefined,
  accepts: boolean,
  report: string,
): string | undefined {
  const given = value === undefined || value.trim() === '' ? undefined : coinCode('valuation', value);
  if (given !== undefined && !accepts) throw new ValidationError('valuation', `does not apply to ${report}`, value);
  if (!isRulesMethod(method)) return given;
  const filing = FILING_CURRENCY[method];
  if (given !== undefined && given !== filing) {
    throw new ValidationError(
      'valuation',
      `must be ${filing} under --method ${method} (its rules are stated in ${filing})`,
      value,
    );
  }
  return filing;
}

function parseLongTermDays(value: string | undefined): number {
  const text = value?.trim() ?? '';
  if (text === '') return DEFAULT_LONG_TERM_DAYS;
  const days = WHOLE.test(text) ? Number(text) : Number.NaN;
  if (!(days >= 1 && days <= MAX_LONG_TERM_DAYS)) {
    throw new ValidationError('longTermDays', `must be a whole number of days from 1 to ${MAX_LONG_TERM_DAYS}`, value);
  }
  return days;
}

/** The installation's valuation settings (config.valuation), for the reports that value coins. */
export interface ValuationSettings {
  readonly currency: string;
  readonly priceToleranceMs: number;
  readonly coinsAwayDays?: number | undefined;
}

export function reportParams(
  request: ExportRequest,
  accountName?: string,
  valuation?: ValuationSettings,
  coverageComplete?: boolean,
): ReportParams {
  return {
    accountId: request.accountId,
    period: request.period,
    coin: request.coin,
    includePending: request.includePending,
    accountName,
    method: request.method,
    longTermDays: request.longTermDays,
    valuationCurrency: request.valuationCurrency ?? valuation?.currency,
    priceToleranceMs: valuation?.priceToleranceMs,
    ...(coverageComplete === undefined ? {} : { coverageComplete }),
    coinsAwayDays: valuation?.coinsAwayDays,
  };
}

/**
 * The file name of an export, a pure function of its parameters: the same request always lands
 * in the same file (and job id), e.g. `spot-ledger_2026-01-01_2026-12-31_Europe~Berlin.csv`.
 */
export function exportBaseName(request: ExportRequest): string {
  const parts: string[] = [
    request.report,
    request.period.from,
    request.period.to,
    request.period.tz.replaceAll('/', '~'),
  ];
  if (request.coin) parts.push(`coin-${request.coin}`);
  if (request.includePending) parts.push('pending');
  // The method and the term change every row: part of the name, so each has its own file and job.
  if (request.method !== undefined) parts.push(request.method);
  if (request.longTermDays !== undefined) parts.push(`long-${request.longTermDays}d`);
  // A currency asked for changes every value; the rules methods' own currency is implied by their name.
  if (request.valuationCurrency !== undefined && !isRulesMethod(request.method)) {
    parts.push(`in-${request.valuationCurrency}`);
  }
  return parts.join('_');
}

export { REPORT_NAMES };
