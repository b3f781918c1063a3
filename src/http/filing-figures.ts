import { DateTime } from 'luxon';
import pg from 'pg';

import type { RulesMethod } from '../accounting/gains/gains-method.ts';
import { TAX_YEAR_ZONE, type TaxYear, taxYearsOf } from '../accounting/gains/tax-years.ts';
import { openClient } from '../db/pg-connections.ts';
import { futuresLedgerFrom } from '../export/closed-positions-span.ts';
import { parseExportRequest, reportParams, type ValuationSettings } from '../export/export-request.ts';
import { reportFor } from '../export/reports/index.ts';
import { scopeWindowStarts } from '../ingest/coverage/coverage-summary.ts';
import type { Stream } from '../streams/registry.ts';
import { type PeriodGap, streamGaps } from './coverage.ts';

/** One row of a filing summary, its cells by column name (the CSV's exact text; '' for empty). */
export type SummaryRow = Readonly<Record<string, string>>;

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
}

export interface FilingFiguresInput {
  readonly databaseUrl: string;
  readonly pool: pg.Pool;
  readonly accountId: string;
  readonly accountName: string;
  readonly valuation?: ValuationSettings | undefined;
  readonly now: number;
}

const FILING_LEVEL: Readonly<Record<RulesMethod, string>> = { uk: 'sa108', de: 'anlage-so' };

/** Each scope's first planned window of a stream, in ms. */
async function scopeStartsMs(input: FilingFiguresInput, stream: Stream): Promise<Map<string, number>> {
  const starts = await scopeWindowStarts(input.pool, input.accountId, stream);
  return new Map([...starts].map(([scope, start]) => [scope, start.getTime()]));
}

/**
 * A stream's gaps up to `end`, each scope judged from its own first window when that is earlier
 * than the year (the summary carries lots in from the whole history, as export-covered.ts checks).
 */
async function scopeGaps(
  input: FilingFiguresInput,
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

/** The first record of the account's spot or futures ledger, if any: where its tax years begin. */
async function firstRecordMs(pool: pg.Pool, accountId: string): Promise<number | null> {
  const { rows } = await pool.query<{ ms: string | null }>(
    `SELECT (extract(epoch FROM least(
              (SELECT min(ts) FROM spot_record WHERE account_id = $1),
              (SELECT min(ts) FROM futures_ledger_record WHERE account_id = $1))) * 1000)::bigint::text AS ms`,
    [accountId],
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? null : Number(ms);
}

/**
 * Per tax year, from the account's first record's year to today's, the filing summary of one
 * method exactly as `realized-gains-summary --method uk|de` writes it for that period: the same
 * request (parseExportRequest, so the same zone, currency and defaults), the same report's rows
 * (no second calculation). One walk covers every year; the year still running is part of a year
 * (`complete` false), as a summary asked for it to today would say.
 */
export async function filingYears(input: FilingFiguresInput, method: RulesMethod): Promise<FilingYear[]> {
  const first = await firstRecordMs(input.pool, input.accountId);
  if (first === null) return [];
  const zone = TAX_YEAR_ZONE[method];
  const firstYear = taxYearsOf(method, first, first + 1)[0]!;
  const request = parseExportRequest({
    report: 'realized-gains-summary',
    accountId: input.accountId,
    method,
    from: DateTime.fromMillis(firstYear.startMs, { zone }).toISODate()!,
    to: DateTime.fromMillis(input.now, { zone }).toISODate()!,
  });
  const params = reportParams(request, input.accountName, input.valuation);
  const report = reportFor('realized-gains-summary', method);
  if (report.kind !== 'computed') throw new Error('the filing summaries are computed reports');
  const headers = report.columns.map((c) => c.header);
  const years = taxYearsOf(method, request.period.start.getTime(), request.period.end.getTime());
  const byYear = new Map(years.map((y) => [y.label, [] as SummaryRow[]]));
  const yearColumn = method === 'uk' ? 'tax_year' : 'year';
  // A client of its own, as an export has (stream-report.ts): the walk's cursors hold it, and the
  // session's zone is the period's.
  const client = await openClient({ connectionString: input.databaseUrl, application_name: 'ledgerline-web-filing' });
  try {
    await client.query(`SELECT set_config('TimeZone', $1, false)`, [request.period.tz]);
    for await (const row of report.rows(params, client)) {
      const named = Object.fromEntries(headers.map((h, i) => [h, row.cells[i] ?? '']));
      byYear.get(named[yearColumn]!)?.push(named);
    }
  } finally {
    await client.end();
  }
  // The summary carries lots in from the whole history: as an export of the year checks
  // (export-covered.ts), each stream scope from its own first window when that is earlier (the
  // wallets' histories start apart, and so do a horizon-narrowed stream's scopes), to the year's
  // end or now.
  const historyFrom = new Map<Stream, Map<string, number>>();
  for (const stream of report.streams) historyFrom.set(stream, await scopeStartsMs(input, stream));
  // Closed positions count only before the futures ledger vouches for the results (closed-positions-span.ts).
  const ledgerStart = report.closedPositionsBeforeLedger
    ? ((await futuresLedgerFrom(input.pool, input.accountId))?.getTime() ?? Infinity)
    : -Infinity;
  const positionsFrom = await scopeStartsMs(input, 'positions');
  const out: FilingYear[] = [];
  for (const year of years) {
    const rows = byYear.get(year.label)!;
    const end = Math.min(year.endMs, input.now);
    const gaps: PeriodGap[] = [];
    for (const [stream, scopes] of historyFrom)
      gaps.push(...(await scopeGaps(input, stream, scopes, year.startMs, end)));
    const positionsEnd = Math.min(end, ledgerStart);
    gaps.push(...(await scopeGaps(input, 'positions', positionsFrom, year.startMs, positionsEnd)));
    // The year still running: what is not read yet since the last sync is no gap, only where the data ends.
    const running = year.endMs > input.now;
    const trailing = running ? gaps.filter((g) => g.end === end) : [];
    out.push({
      method,
      year,
      complete: rows[0]?.complete === 'true',
      gaps: gaps.filter((g) => !trailing.includes(g)),
      readTo: trailing.length > 0 ? Math.min(...trailing.map((g) => g.start)) : undefined,
      filing: rows.find((r) => r.level === FILING_LEVEL[method]) ?? {},
      total: rows.find((r) => r.level === 'total') ?? {},
      coins: rows.filter((r) => r.level === 'coin'),
      futures: rows.filter((r) => r.level === 'futures'),
    });
  }
  return out;
}
