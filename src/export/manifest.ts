import { RULES_VERSION, type RulesMethod } from '../accounting/gains/gains-method.ts';
import { wholeTaxYears } from '../accounting/gains/tax-years.ts';
import { RATE_CARRY_DAYS } from '../accounting/prices/rate-carry.ts';
import type { ExportCoverage } from './export-coverage.ts';
import type { ExportRequest } from './export-request.ts';
import type { ReviewAmounts } from './review-amounts.ts';
import type { StreamResult, UnmappedSummary } from './stream-report.ts';
import type { ExportOpeningBalances } from './wallet-opening-balances.ts';

/**
 * What a CSV is, written beside it: enough for an accountant or auditor to tell which data and
 * parameters produced the file and to verify it is unaltered (sha256). `generatedAt` lives only
 * here, never in the CSV, so re-running an export gives a byte-identical CSV.
 */
export interface ExportManifest {
  report: string;
  title: string;
  account: { id: string; name: string };
  parameters: {
    from: string;
    to: string;
    tz: string;
    coin: string | null;
    includePending: boolean | null;
    /** Lot-matching reports only (realized-gains, its summary, income-summary). */
    method?: string;
    /** The version of the method's rules (gains-method.ts RULES_VERSION): which sources it follows. */
    rulesVersion?: string;
    longTermDays?: number;
    /** The currency every value is stated in (reports that value coins). */
    valuationCurrency?: string;
    /**
     * Reports that value coins: how a day without a published rate is valued (rate-carry.ts,
     * docs/reports.md "Prices and valuation"): the last imported fiat rate on or before it, at most
     * `maxDaysBack` days back, the value's source marked `~carried`.
     */
    ratesOnDaysWithoutOne?: { maxDaysBack: number; rule: string };
  };
  /** The zone of the file's Date column when its values carry no offset (Koinly, CoinTracking: UTC). */
  dateZone: string | null;
  /** The half-open UTC interval the local dates stand for. */
  period: { start: string; end: string };
  /** True when the streams the report reads do not cover the whole period (exported with --allow-partial). */
  partial: boolean;
  /**
   * Filing summaries only (realized-gains-summary under uk, de): whether the period holds whole
   * tax years only; false: its figures are part of a year, and no Freigrenze is decided.
   */
  complete?: boolean;
  /** Per stream (and scope): the covered ranges of the period, its gaps, and the data's "as of"; null when not checked. */
  coverage: ExportCoverage | null;
  file: string;
  columns: string[];
  rowCount: number;
  bytes: number;
  sha256: string;
  unmapped: UnmappedSummary;
  /** Trade legs that could not be paired with their other side (Koinly, CoinTracking), in the CSV too. */
  unpairedLegs: number;
  /** The side file listing them (same columns), or null when there are none. */
  unpairedFile: string | null;
  /** Records left out of the file on purpose, per spotTaxType (Koinly, CoinTracking: docs/reports.md). */
  omitted: UnmappedSummary;
  /** Rows whose booking an accountant should confirm, per spotTaxType (docs/reports.md, "Mapping review"). */
  review: UnmappedSummary;
  /**
   * The gains reports only: per review flag (`unknown-cost`, `disposal-exceeds-holdings`,
   * `withdrawal-exceeds-holdings`, `compensate-lot`) and coin, the rows and the quantity and proceeds they carry
   * (`proceedsMissing`: rows with no proceeds stated, not in `proceeds`); review-amounts.ts.
   */
  reviewAmounts?: ReviewAmounts;
  /**
   * Per wallet (`spot`, `futures`, each wallet ledger's label: `margin`, `p2p`), per coin: the exchange's
   * balance at the period's start, coins holding nothing left out; null for a report that does not
   * state them (docs/reports.md, "Opening balances").
   */
  openingBalances: ExportOpeningBalances | null;
  /**
   * A fingerprint of everything the file was made from, when its exporter states one (the demo's:
   * src/demo/demo-inputs.ts): the same inputs again make the same file, so a rerun keeps it.
   */
  inputs?: string;
  generatedAt: string;
}

/** What every valuing export's manifest says of days without a published rate (issue 42 item 5). */
export const RATES_ON_DAYS_WITHOUT_ONE = {
  maxDaysBack: RATE_CARRY_DAYS,
  rule:
    `an imported rate of a fiat pair (a central bank's, published on working days only) values the days ` +
    `without one after it: the last rate published on or before the day, at most ${RATE_CARRY_DAYS} days back, ` +
    `never a later one; such a value's source ends in ~carried (HMRC CRYPTO23000: a consistent methodology)`,
} as const;

export function buildManifest(input: {
  request: ExportRequest;
  title: string;
  dateZone?: string | undefined;
  columns: string[];
  /** The reports that value coins: the currency they were valued in. */
  valuationCurrency?: string | undefined;
  account: { id: string; name: string };
  /** The filing summaries' tax years (report-definition `taxYears`): the manifest states `complete`. */
  taxYears?: RulesMethod | undefined;
  file: string;
  unpairedFile: string | null;
  coverage: ExportCoverage | null;
  result: StreamResult;
  inputs?: string | undefined;
  generatedAt: Date;
}): ExportManifest {
  const { request, result } = input;
  return {
    report: request.report,
    title: input.title,
    account: { id: input.account.id, name: input.account.name },
    parameters: {
      from: request.period.from,
      to: request.period.to,
      tz: request.period.tz,
      coin: request.coin ?? null,
      includePending: request.includePending ?? null,
      ...(request.method !== undefined ? { method: request.method, rulesVersion: RULES_VERSION[request.method] } : {}),
      ...(request.longTermDays !== undefined ? { longTermDays: request.longTermDays } : {}),
      ...(input.valuationCurrency !== undefined
        ? { valuationCurrency: input.valuationCurrency, ratesOnDaysWithoutOne: RATES_ON_DAYS_WITHOUT_ONE }
        : {}),
    },
    dateZone: input.dateZone ?? null,
    period: { start: request.period.start.toISOString(), end: request.period.end.toISOString() },
    partial: input.coverage ? !input.coverage.complete : false,
    ...(input.taxYears !== undefined
      ? {
          // A year is whole only when the stored history covers it too (a _PARTIAL file never is).
          complete:
            wholeTaxYears(input.taxYears, request.period.start.getTime(), request.period.end.getTime()) &&
            input.coverage?.complete !== false,
        }
      : {}),
    coverage: input.coverage,
    file: input.file,
    columns: input.columns,
    rowCount: result.rowCount,
    bytes: result.bytes,
    sha256: result.sha256,
    unmapped: result.unmapped,
    unpairedLegs: result.unpairedLegs,
    unpairedFile: input.unpairedFile,
    omitted: result.omitted,
    review: result.review,
    ...(result.reviewAmounts !== null ? { reviewAmounts: result.reviewAmounts } : {}),
    openingBalances: result.openingBalances,
    ...(input.inputs !== undefined ? { inputs: input.inputs } : {}),
    generatedAt: input.generatedAt.toISOString(),
  };
}

/** `x.csv` -> `x.manifest.json` (any other name gets `.manifest.json` appended). */
export function manifestPathFor(csvPath: string): string {
  return siblingPath(csvPath, '.manifest.json');
}

/** `x.csv` -> `x.unpaired.csv` (`x.beancount` -> `x.unpaired.beancount`): the trade legs that could not be paired. */
export function unpairedPathFor(csvPath: string): string {
  return siblingPath(csvPath, `.unpaired${DATA_EXTENSION.exec(csvPath)?.[0] ?? '.csv'}`);
}

// The extensions of report files: CSV, and the text files of report-definition's `textFile`.
const DATA_EXTENSION = /\.(csv|beancount)$/;

function siblingPath(csvPath: string, suffix: string): string {
  const extension = DATA_EXTENSION.exec(csvPath)?.[0];
  return extension ? `${csvPath.slice(0, -extension.length)}${suffix}` : `${csvPath}${suffix}`;
}
