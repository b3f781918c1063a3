import type pg from 'pg';

import type { GainsMethod, RulesMethod } from '../accounting/gains/gains-method.ts';
import type { Stream } from '../streams/registry.ts';
import type { CellKind } from './neutralize.ts';
import type { Period } from './period.ts';
import type { ReviewAmountColumns } from './review-amounts.ts';

export interface ReportColumn {
  readonly header: string;
  readonly kind: CellKind;
}

/** What a report is asked for; everything but the period is optional. */
export interface ReportParams {
  readonly accountId: string;
  readonly period: Period;
  /** Only records of this coin (spot ledger, Koinly, CoinTracking, transfers). */
  readonly coin?: string | undefined;
  /** Transfers: include records still pending (final statuses only by default). */
  readonly includePending?: boolean | undefined;
  /** Name written in CoinTracking's Exchange column. */
  readonly accountName?: string | undefined;
  /** Realized gains: how disposals pick their lots (default fifo), or a jurisdiction's rules (uk, de). */
  readonly method?: GainsMethod | undefined;
  /** Realized gains: a lot held more than this many days is long-term (default 365). */
  readonly longTermDays?: number | undefined;
  /** The currency values are stated in (config VALUATION_CURRENCY; default USDT). */
  readonly valuationCurrency?: string | undefined;
  /** How old a price may be and still value an instant, ms (config PRICE_TOLERANCE; default 36 h). */
  readonly priceToleranceMs?: number | undefined;
  /**
   * false: the stored history does not cover the period (a `_PARTIAL` file): no tax year of it is
   * whole, whatever its dates (filing summaries). Absent: not checked (as a whole).
   */
  readonly coverageComplete?: boolean | undefined;
  /** The gains summaries: coins away longer than this many days are flagged (config COINS_AWAY_DAYS; default 90). */
  readonly coinsAwayDays?: number | undefined;
}

export interface ReportQuery {
  readonly text: string;
  readonly values: unknown[];
}

// The booking's row flags, which every report's manifest counts (defined with the booking vocabulary).
export { OMITTED_PREFIX, REVIEW_PREFIX, UNPAIRED_LEG } from '../booking/entry-flags.ts';

/** What every report has, however its rows are made. */
interface ReportBase {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly columns: readonly ReportColumn[];
  /** The zone of a date column written without an offset (the tax-tool files: UTC), for the manifest. */
  readonly dateZone?: string;
  /** The history streams the report reads: an export checks their coverage of the period. */
  readonly streams: readonly Stream[];
  /**
   * A file that is not CSV (the beancount journal): no header line, and each row's single cell
   * written as it is (no quoting, no neutralizing: the report makes its own valid lines), then a
   * line end; the file takes this extension instead of `.csv`. Manifest, hashing and flags as usual.
   */
  readonly textFile?: { readonly extension: string };
  /**
   * `history`: the report's rows depend on records before the period too (lots carried in), so the
   * coverage it needs runs from the start of the stored history (the account's first planned
   * window of each stream), not from the period's start. Default `period`.
   */
  readonly coverage?: 'period' | 'history';
  /**
   * The rows take futures results from closed positions before the account's first futures-ledger
   * record (ledger-entries.ts, futures-entries.ts): the export also checks the `positions` stream
   * over that span (closed-positions-span.ts), and only there.
   */
  readonly closedPositionsBeforeLedger?: true;
  /**
   * The manifest states each wallet's balance per coin at the period's start (`openingBalances`),
   * so a tool given only this period can reconcile (the tax-tool files and the spot ledger).
   */
  readonly statesOpeningBalances?: true;
  /**
   * A filing summary that walks this method's tax years (tax-years.ts): its manifest states
   * `complete`, whether the period holds whole tax years only.
   */
  readonly taxYears?: RulesMethod;
  /**
   * The gains reports (one row per matched part): the columns naming a row's coin, quantity and
   * proceeds. The manifest's `reviewAmounts` sums them per coin for the rows of unknown cost and
   * beyond the holdings (review-amounts.ts), beside the row counts of `review`. Counted where rows
   * pass through Node (computed reports, the gains reports all are), not on the COPY path.
   */
  readonly reviewAmounts?: ReviewAmountColumns;
  /** Which optional parameters the report understands. */
  readonly accepts: {
    readonly coin: boolean;
    readonly includePending: boolean;
    /** `method` and `longTermDays` (the lot-matching reports). */
    readonly lots?: boolean;
    /** `valuationCurrency` (--valuation): the reports that value coins through the price book. */
    readonly valuation?: boolean;
  };
}

/**
 * One CSV report made by one SQL query. The query returns the output columns in order, then ONE
 * extra column: null for a normal row, `UNPAIRED_LEG` for a trade leg without its other side,
 * `omitted:<what>` for a row left out of the file, `review:<what>` for a row to confirm, or a short
 * label (e.g. `spotTaxType=Foo`) for a row carrying a value the mapping or the schema does not
 * know. That column is counted into the manifest and never written to the CSV.
 * Every value is text already (amounts cast with ::text, times formatted in SQL), and the ORDER BY
 * ends in a unique key, so the same data gives the same bytes.
 */
export interface SqlReportDefinition extends ReportBase {
  readonly kind: 'sql';
  query(params: ReportParams): ReportQuery;
}

/** One row of a computed report: its cells in column order (text, exact) and the flag (see above). */
export interface ReportRow {
  readonly cells: readonly (string | null)[];
  readonly flag?: string | null;
}

/**
 * A report whose rows are computed in Node from what the database holds (lot matching, running
 * balances, a journal): `rows` reads through the export's own connection (its session time zone is
 * the period's) and yields rows in output order, in constant memory (cursors, not arrays of the
 * whole history). The flag has the SQL reports' meaning. Throwing a typed error fails the export
 * before anything is renamed into place. Same data, same bytes: the order must be total.
 */
export interface ComputedReportDefinition extends ReportBase {
  readonly kind: 'computed';
  rows(params: ReportParams, db: pg.ClientBase): AsyncIterable<ReportRow>;
}

export type ReportDefinition = SqlReportDefinition | ComputedReportDefinition;

export function text(header: string): ReportColumn {
  return { header, kind: 'text' };
}

export function decimal(header: string): ReportColumn {
  return { header, kind: 'decimal' };
}
