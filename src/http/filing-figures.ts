import type pg from 'pg';

import { type FilingQueue, requestFilingFigures } from '../../jobs/composition/filing-queue.ts';
import type { RulesMethod } from '../accounting/gains/gains-method.ts';
import type { TaxYear } from '../accounting/gains/tax-years.ts';
import { futuresLedgerFrom } from '../export/closed-positions-span.ts';
import type { ValuationSettings } from '../export/export-request.ts';
import { hasFiling, readFiling, type StoredFiling } from '../export/filing/filing-figures-store.ts';
import { filingInputVersion } from '../export/filing/filing-input-version.ts';
import { type SummaryRow, summaryYears } from '../export/filing/filing-summary.ts';
import { GAINS_WALK_STREAMS } from '../export/reports/gains-source.ts';
import { scopeWindowStarts } from '../ingest/coverage/coverage-summary.ts';
import type { Stream } from '../streams/registry.ts';
import { type PeriodGap, streamGaps } from './coverage.ts';

export type { SummaryRow };

/** One tax year of one method's filing summary, as the summary CSV states it. */
export interface FilingYear {
  readonly method: RulesMethod;
  readonly year: TaxYear;
  /** The summary's `complete`: the figures cover the whole tax year (false for the year still running). */
  readonly complete: boolean;
  /**
   * The parts of the history up to the year's end (or now) the data lacks, from the account's
   * first window (or the year's start, if earlier): the figures may be short.
   */
  readonly gaps: PeriodGap[];
  /** The year still running: where the records read so far end, when before now. */
  readonly readTo?: number | undefined;
  /** The `sa108` (uk) or `anlage-so` (de) row: the return's figures in whole units. */
  readonly filing: SummaryRow;
  /** The year's `total` row (de: the Freigrenze decision). */
  readonly total: SummaryRow;
  /** The per-coin rows (the quantities of unknown cost and beyond the holdings). */
  readonly coins: SummaryRow[];
  /** The `futures` rows, one per margin coin. */
  readonly futures: SummaryRow[];
  /** The instant the figures describe: the history as it stood then (UTC ms). */
  readonly asOf?: number | undefined;
  /**
   * The figures are not those of the current records and supplied figures (something changed
   * since `asOf`): the new ones are being computed. Never state them as the year's current figures.
   */
  readonly computing?: boolean | undefined;
}

/** A method's figures as a view finds them. */
export interface MethodFigures {
  /** The stored figures shown, per tax year (empty: none stored yet, or the account holds no record). */
  readonly years: FilingYear[];
  /** The figures of the current inputs are being computed: `years` (if any) are older ones. */
  readonly computing: boolean;
  /** The instant the shown figures describe. */
  readonly asOf?: number | undefined;
  /** How long the last computation took (ms): what the page may tell the reader to expect. */
  readonly lastComputeMs?: number | undefined;
  /** The previous try of the current figures failed, and why (they are tried again). */
  readonly failedReason?: string | undefined;
}

export interface FilingFiguresInput extends CoverageInput {
  readonly valuation?: ValuationSettings | undefined;
  /** The account's coverage, read at most once for the view (accountCoverage; see sharedCoverage). */
  readonly coverage: () => Promise<AccountCoverage>;
  /** Where a computation is asked for (the worker's filing queue). */
  readonly queue: FilingQueue;
  readonly now: number;
  /**
   * How long a view waits for a computation it asked for before answering with the newest stored
   * figures, marked `computing` (the page then reloads itself): a wait on the store, never on
   * the event loop. 0: answer at once.
   */
  readonly waitMs?: number | undefined;
}

/** How often a waiting view looks whether the figures it asked for are stored. */
const POLL_MS = 100;

/** What reading the coverage takes. */
export interface CoverageInput {
  readonly pool: pg.Pool;
  readonly accountId: string;
  readonly now: number;
}

const FILING_LEVEL: Readonly<Record<RulesMethod, string>> = { uk: 'sa108', de: 'anlage-so' };

/**
 * A method's figures for the tax years page, without walking anything here: the stored figures
 * of the current input version (filing-input-version.ts) when the worker has computed them; else
 * the computation is asked for (one job per version, shared by every view asking) and the newest
 * stored figures are shown, marked `computing` with the instant they describe. The coverage (each
 * year's gaps, where the running year's records end) is read now, as it changes by the minute.
 */
export async function filingFigures(input: FilingFiguresInput, method: RulesMethod): Promise<MethodFigures> {
  const version = await filingInputVersion(input.pool, input.accountId, method, input.valuation, input.now);
  let { current, newest } = await readFiling(input.pool, input.accountId, method, version);
  let failedReason: string | undefined;
  if (current === undefined) {
    ({ failedReason } = await requestFilingFigures(input.queue, {
      accountId: input.accountId,
      method,
      inputVersion: version,
    }));
    if (failedReason === undefined && (await storedWithin(input, method, version))) {
      ({ current, newest } = await readFiling(input.pool, input.accountId, method, version));
    }
  }
  const shown = current ?? newest;
  const computing = current === undefined;
  return {
    years: shown === undefined ? [] : filingYearsOf(input, method, shown, computing, await input.coverage()),
    computing,
    asOf: shown?.asOfMs,
    lastComputeMs: shown?.computeMs,
    failedReason,
  };
}

/** Whether the figures of `version` are stored within the input's wait (looked at every POLL_MS). */
async function storedWithin(input: FilingFiguresInput, method: RulesMethod, version: string): Promise<boolean> {
  const deadline = performance.now() + (input.waitMs ?? 0);
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(0, deadline - performance.now()))));
    if (await hasFiling(input.pool, input.accountId, method, version)) return true;
  }
  return false;
}

/** The stored figures as the page's tax years, each year's coverage from `coverage` (accountCoverage). */
export function filingYearsOf(
  input: CoverageInput,
  method: RulesMethod,
  stored: StoredFiling,
  computing: boolean,
  coverage: AccountCoverage,
): FilingYear[] {
  const summary = stored.summary;
  if (summary === null) return [];
  return summaryYears(method, summary).map((year) => {
    const rows = summary.years[year.label] ?? [];
    const { gaps, readTo } = yearCoverage(input.now, coverage, year);
    return {
      method,
      year,
      complete: rows[0]?.complete === 'true',
      gaps,
      readTo,
      filing: rows.find((r) => r.level === FILING_LEVEL[method]) ?? {},
      total: rows.find((r) => r.level === 'total') ?? {},
      coins: rows.filter((r) => r.level === 'coin'),
      futures: rows.filter((r) => r.level === 'futures'),
      asOf: stored.asOfMs,
      computing,
    };
  });
}

/** Per stream, each scope's first planned window (ms), and the stream's gaps from the earliest of them to now. */
interface StreamCoverage {
  readonly starts: Map<string, number>;
  readonly gaps: PeriodGap[];
}

/** What the page judges every year's coverage from: read once per view, for both methods. */
export interface AccountCoverage {
  /** The streams the gains walk reads. */
  readonly history: Map<Stream, StreamCoverage>;
  readonly positions: StreamCoverage;
  /** Closed positions count only before the futures ledger vouches for the results (closed-positions-span.ts). */
  readonly ledgerStart: number;
}

/** Before every tax year any method's figures can have (the Unix epoch: before every record). */
const EARLIEST = 0;

async function streamCoverage(input: CoverageInput, stream: Stream): Promise<StreamCoverage> {
  const found = await scopeWindowStarts(input.pool, input.accountId, stream);
  const starts = new Map([...found].map(([scope, start]) => [scope, start.getTime()]));
  // The gaps from before any tax year to now: each year takes its part (yearCoverage). A difference
  // of ranges, so the part of a year is what asking for the year alone would find; the horizon's
  // split is at the same instant.
  const gaps = await streamGaps(
    input.pool,
    input.accountId,
    [stream],
    { start: new Date(EARLIEST), end: new Date(input.now) },
    undefined,
    input.now,
  );
  return { starts, gaps };
}

/** accountCoverage read on first call only: the methods of one view share it, and a view with no figures reads none. */
export function sharedCoverage(input: CoverageInput): () => Promise<AccountCoverage> {
  let read: Promise<AccountCoverage> | undefined;
  return () => (read ??= accountCoverage(input));
}

/**
 * The account's coverage as the tax years page judges it: one read of each stream's gaps, shared by
 * every year of both methods (a query per stream, not per stream, year and method).
 */
export async function accountCoverage(input: CoverageInput): Promise<AccountCoverage> {
  const history = new Map<Stream, StreamCoverage>();
  for (const stream of GAINS_WALK_STREAMS) history.set(stream, await streamCoverage(input, stream));
  const ledgerStart = (await futuresLedgerFrom(input.pool, input.accountId))?.getTime() ?? Infinity;
  return { history, positions: await streamCoverage(input, 'positions'), ledgerStart };
}

/**
 * The summary carries lots in from the whole history: as an export of the year checks
 * (export-covered.ts), each stream scope from its own first window when that is earlier (the
 * wallets' histories start apart, and so do a horizon-narrowed stream's scopes), else from the
 * year's start, to the year's end or now. The year still running: what is not read yet since the
 * last sync is no gap, only where the data ends.
 */
function yearCoverage(
  now: number,
  coverage: AccountCoverage,
  year: TaxYear,
): { gaps: PeriodGap[]; readTo: number | undefined } {
  const end = Math.min(year.endMs, now);
  const gaps: PeriodGap[] = [];
  for (const stream of coverage.history.values()) gaps.push(...clip(stream, year.startMs, end));
  gaps.push(...clip(coverage.positions, year.startMs, Math.min(end, coverage.ledgerStart)));
  const running = year.endMs > now;
  const trailing = running ? gaps.filter((g) => g.end === end) : [];
  return {
    gaps: gaps.filter((g) => !trailing.includes(g)),
    readTo: trailing.length > 0 ? Math.min(...trailing.map((g) => g.start)) : undefined,
  };
}

/** A stream's gaps within [its scope's first window or the year's start, whichever is earlier; end). */
function clip(stream: StreamCoverage, yearStartMs: number, end: number): PeriodGap[] {
  return stream.gaps.flatMap((gap) => {
    const from = Math.max(gap.start, Math.min(stream.starts.get(gap.scope) ?? yearStartMs, yearStartMs));
    const to = Math.min(gap.end, end);
    return from < to ? [{ ...gap, start: from, end: to }] : [];
  });
}
