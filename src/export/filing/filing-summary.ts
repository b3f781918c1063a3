import { DateTime } from 'luxon';
import pg from 'pg';

import type { RulesMethod } from '../../accounting/gains/gains-method.ts';
import { TAX_YEAR_ZONE, type TaxYear, taxYearsOf } from '../../accounting/gains/tax-years.ts';
import { openClient } from '../../db/pg-connections.ts';
import { type ExportRequest, parseExportRequest, reportParams, type ValuationSettings } from '../export-request.ts';
import type { ReportParams } from '../report-definition.ts';
import { reportFor } from '../reports/index.ts';

/** One row of a filing summary, its cells by column name (the CSV's exact text; '' for empty). */
export type SummaryRow = Readonly<Record<string, string>>;

/** One method's filing summary per tax year: what the worker computes and the store keeps. */
export interface FilingSummary {
  /** The period walked: from the first record's tax year to the day of `asOf` (the request's). */
  readonly startMs: number;
  readonly endMs: number;
  /** Per tax year's label, in year order: the summary's rows of that year. */
  readonly years: Readonly<Record<string, SummaryRow[]>>;
}

export interface FilingSummaryInput {
  readonly accountId: string;
  readonly accountName: string;
  readonly valuation?: ValuationSettings | undefined;
  /** The day the figures run to (the running year's end is today). */
  readonly now: number;
}

/** The first record of the account's spot or futures ledger, if any: where its tax years begin. */
export async function firstRecordMs(db: pg.Pool | pg.ClientBase, accountId: string): Promise<number | null> {
  const { rows } = await db.query<{ ms: string | null }>(
    `SELECT (extract(epoch FROM least(
              (SELECT min(ts) FROM spot_record WHERE account_id = $1),
              (SELECT min(ts) FROM futures_ledger_record WHERE account_id = $1))) * 1000)::bigint::text AS ms`,
    [accountId],
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? null : Number(ms);
}

/**
 * The request `realized-gains-summary --method uk|de` would be for every tax year from the one of
 * `firstMs` to today (parseExportRequest: the same zone, currency and defaults), and its params.
 */
export function filingRequest(
  input: FilingSummaryInput,
  method: RulesMethod,
  firstMs: number,
): { request: ExportRequest; params: ReportParams } {
  const zone = TAX_YEAR_ZONE[method];
  const firstYear = taxYearsOf(method, firstMs, firstMs + 1)[0]!;
  const request = parseExportRequest({
    report: 'realized-gains-summary',
    accountId: input.accountId,
    method,
    from: DateTime.fromMillis(firstYear.startMs, { zone }).toISODate()!,
    to: DateTime.fromMillis(input.now, { zone }).toISODate()!,
  });
  return { request, params: reportParams(request, input.accountName, input.valuation) };
}

/** The tax years a stored summary covers, in order. */
export function summaryYears(method: RulesMethod, summary: Pick<FilingSummary, 'startMs' | 'endMs'>): TaxYear[] {
  return taxYearsOf(method, summary.startMs, summary.endMs);
}

/**
 * Per tax year, from the account's first record's year to today's, the filing summary of one
 * method exactly as `realized-gains-summary --method uk|de` writes it for that period: the same
 * request, the same report's rows (no second calculation). One walk covers every year; the year
 * still running is part of a year (`complete` false), as a summary asked for it to today would say.
 * Null when the account holds no record. The walk is the history's: run it in the worker
 * (src/export/filing/compute-filing-figures.ts), never in the web process's event loop.
 */
export async function filingSummary(
  databaseUrl: string,
  input: FilingSummaryInput,
  method: RulesMethod,
): Promise<FilingSummary | null> {
  // A client of its own, as an export has (stream-report.ts): the walk's cursors hold it, and the
  // session's zone is the period's.
  const client = await openClient({ connectionString: databaseUrl, application_name: 'ledgerline-filing' });
  try {
    const first = await firstRecordMs(client, input.accountId);
    if (first === null) return null;
    const { request, params } = filingRequest(input, method, first);
    const report = reportFor('realized-gains-summary', method);
    if (report.kind !== 'computed') throw new Error('the filing summaries are computed reports');
    const headers = report.columns.map((c) => c.header);
    const startMs = request.period.start.getTime();
    const endMs = request.period.end.getTime();
    const years: Record<string, SummaryRow[]> = {};
    for (const year of taxYearsOf(method, startMs, endMs)) years[year.label] = [];
    const yearColumn = method === 'uk' ? 'tax_year' : 'year';
    await client.query(`SELECT set_config('TimeZone', $1, false)`, [request.period.tz]);
    for await (const row of report.rows(params, client)) {
      const named = Object.fromEntries(headers.map((h, i) => [h, row.cells[i] ?? '']));
      years[named[yearColumn]!]?.push(named);
    }
    return { startMs, endMs, years };
  } finally {
    await client.end();
  }
}
