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
    years: shown === undefined ? [] : await filingYearsOf(input, method, shown, computing),
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

/** The stored figures as the page's tax years, each year's coverage read now. */
export async function filingYearsOf(
  input: CoverageInput,
  method: RulesMethod,
  stored: StoredFiling,
  computing: boolean,
): Promise<FilingYear[]> {
  const summary = stored.summary;
  if (summary === null) return [];
  const coverage = await coverageStarts(input);
  const out: FilingYear[] = [];
  for (const year of summaryYears(method, summary)) {
    const rows = summary.years[year.label] ?? [];
    const { gaps, readTo } = await yearCoverage(input, coverage, year);
    out.push({
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
    });
  }
  return out;
}

interface CoverageStarts {
  /** Per stream the walk reads, each scope's first planned window (ms). */
  readonly history: Map<Stream, Map<string, number>>;
  readonly positions: Map<string, number>;
  /** Closed positions count only before the futures ledger vouches for the results (closed-positions-span.ts). */
  readonly ledgerStart: number;
}

/** Each scope's first planned window of a stream, in ms. */
async function scopeStartsMs(input: CoverageInput, stream: Stream): Promise<Map<string, number>> {
  const starts = await scopeWindowStarts(input.pool, input.accountId, stream);
  return new Map([...starts].map(([scope, start]) => [scope, start.getTime()]));
}

async function coverageStarts(input: CoverageInput): Promise<CoverageStarts> {
  const history = new Map<Stream, Map<string, number>>();
  for (const stream of GAINS_WALK_STREAMS) history.set(stream, await scopeStartsMs(input, stream));
  const ledgerStart = (await futuresLedgerFrom(input.pool, input.accountId))?.getTime() ?? Infinity;
  return { history, positions: await scopeStartsMs(input, 'positions'), ledgerStart };
}

/**
 * The summary carries lots in from the whole history: as an export of the year checks
 * (export-covered.ts), each stream scope from its own first window when that is earlier (the
 * wallets' histories start apart, and so do a horizon-narrowed stream's scopes), to the year's
 * end or now. The year still running: what is not read yet since the last sync is no gap, only
 * where the data ends.
 */
async function yearCoverage(
  input: CoverageInput,
  coverage: CoverageStarts,
  year: TaxYear,
): Promise<{ gaps: PeriodGap[]; readTo: number | undefined }> {
  const end = Math.min(year.endMs, input.now);
  const gaps: PeriodGap[] = [];
  for (const [stream, scopes] of coverage.history)
    gaps.push(...(await scopeGaps(input, stream, scopes, year.startMs, end)));
  const positionsEnd = Math.min(end, coverage.ledgerStart);
  gaps.push(...(await scopeGaps(input, 'positions', coverage.positions, year.startMs, positionsEnd)));
  const running = year.endMs > input.now;
  const trailing = running ? gaps.filter((g) => g.end === end) : [];
  return {
    gaps: gaps.filter((g) => !trailing.includes(g)),
    readTo: trailing.length > 0 ? Math.min(...trailing.map((g) => g.start)) : undefined,
  };
}

/**
 * A stream's gaps up to `end`, each scope judged from its own first window when that is earlier
 * than the year (the summary carries lots in from the whole history, as export-covered.ts checks).
 */
async function scopeGaps(
  input: CoverageInput,
  stream: Stream,
  scopes: ReadonlyMap<string, number>,
  yearStartMs: number,
  end: number,
): Promise<PeriodGap[]> {
  const fromOf = (scope: string) => Math.min(scopes.get(scope) ?? yearStartMs, yearStartMs);
  const start = Math.min(yearStartMs, ...scopes.values());
  if (start >= end) return [];
  const found = await streamGaps(
    input.pool,
    input.accountId,
    [stream],
    { start: new Date(start), end: new Date(end) },
    undefined,
    input.now,
  );
  return found.flatMap((gap) => {
    const from = Math.max(gap.start, fromOf(gap.scope));
    return from < gap.end ? [{ ...gap, start: from }] : [];
  });
}
