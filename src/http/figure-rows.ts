import { DateTime } from 'luxon';
import pg from 'pg';

import type { RulesMethod } from '../accounting/gains/gains-method.ts';
import { FILING_CURRENCY } from '../accounting/gains/gains-method.ts';
import { TAX_YEAR_ZONE, type TaxYear, taxYearsOf } from '../accounting/gains/tax-years.ts';
import { FUTURES_BOOKINGS } from '../booking/futures-bookings.ts';
import { openClient } from '../db/pg-connections.ts';
import { parseExportRequest, reportParams, type ValuationSettings } from '../export/export-request.ts';
import { reportFor } from '../export/reports/index.ts';
import { type GainsFilter } from './figure-links.ts';
import type { SummaryRow } from './filing-figures.ts';

/** A tax year by its label (`2025-26` for uk, `2025` for de), or undefined for no such label. */
export function taxYearOfLabel(method: RulesMethod, label: string): TaxYear | undefined {
  const first = /^(\d{4})(?:-\d{2})?$/.exec(label)?.[1];
  if (first === undefined) return undefined;
  // Midsummer of the first calendar year lies inside the tax year of either kind.
  const inside = Date.UTC(Number(first), 6, 1);
  const year = taxYearsOf(method, inside, inside + 1)[0];
  return year?.label === label ? year : undefined;
}

/** The report's request for a tax year (to today, for the year still running), as the CLI would make it. */
function yearInput(method: RulesMethod, year: TaxYear, now: number): { from: string; to: string; tz: string } {
  const zone = TAX_YEAR_ZONE[method];
  return {
    from: DateTime.fromMillis(year.startMs, { zone }).toISODate()!,
    to: DateTime.fromMillis(Math.min(year.endMs - 1, now), { zone }).toISODate()!,
    tz: zone,
  };
}

export interface RowsRequest {
  readonly databaseUrl: string;
  readonly accountId: string;
  readonly accountName: string;
  readonly valuation?: ValuationSettings | undefined;
  readonly method: RulesMethod;
  readonly year: TaxYear;
  readonly now: number;
}

/** Whether a gains row passes a rule (uk) or holding (de) filter. */
function passes(method: RulesMethod, row: SummaryRow, filter: GainsFilter | undefined): boolean {
  if (filter === undefined) return true;
  if (method === 'uk') return row.rule === filter;
  return filter === 'taxable' ? row.taxable === 'yes' : row.taxable === 'no';
}

/**
 * The rows of a computed report over a tax year, by column name, streamed as the report computes
 * them: the same request and code as `ledgerline export <report>` for the year's period (a client
 * of its own whose session zone is the period's, as stream-report.ts does). Breaking off the loop
 * ends the walk and closes the client.
 */
async function* reportRows(
  input: RowsRequest,
  report: 'realized-gains' | 'income',
  coin: string | undefined,
): AsyncGenerator<SummaryRow> {
  const request = parseExportRequest({
    report,
    accountId: input.accountId,
    ...(report === 'realized-gains' ? { method: input.method } : { valuation: FILING_CURRENCY[input.method] }),
    ...yearInput(input.method, input.year, input.now),
    ...(coin !== undefined ? { coin } : {}),
  });
  const definition = reportFor(report, request.method);
  if (definition.kind !== 'computed') throw new Error(`${report} is a computed report`);
  const params = reportParams(request, input.accountName, input.valuation);
  const headers = definition.columns.map((c) => c.header);
  const client = await openClient({ connectionString: input.databaseUrl, application_name: 'ledgerline-web-rows' });
  try {
    await client.query(`SELECT set_config('TimeZone', $1, false)`, [request.period.tz]);
    for await (const row of definition.rows(params, client)) {
      yield { ...Object.fromEntries(headers.map((h, i) => [h, row.cells[i] ?? ''])), flag: row.flag ?? '' };
    }
  } finally {
    await client.end();
  }
}

/** The gains rows behind a tax year's figure (realized-gains --method uk|de), filtered by coin and rule. */
export async function* gainsRows(
  input: RowsRequest,
  filter: { coin?: string | undefined; rule?: GainsFilter | undefined },
): AsyncGenerator<SummaryRow> {
  for await (const row of reportRows(input, 'realized-gains', filter.coin)) {
    if (passes(input.method, row, filter.rule)) yield row;
  }
}

/** The income receipts behind a year's other income: the income report, valued in the year's currency. */
export function incomeRows(input: RowsRequest): AsyncGenerator<SummaryRow> {
  return reportRows(input, 'income', undefined);
}

/** The futures types that move money between wallets: no result, left out of the year's futures line. */
const TRANSFER_TYPES = Object.entries(FUTURES_BOOKINGS)
  .filter(([, category]) => category === 'transfer')
  .map(([type]) => type);

export interface FuturesRecordRow {
  readonly id: string;
  readonly productType: string;
  readonly ms: string;
  readonly type: string;
  readonly symbol: string;
  readonly amount: string;
  readonly fee: string;
}

/**
 * The futures ledger's records behind a year's futures line of one margin coin: the records
 * futures-results.ts sums for it (the year's, that margin coin's, transfers left out), time order,
 * one page (`limit` + 1 read, to tell whether another page follows).
 */
export async function futuresRecords(
  pool: pg.Pool,
  accountId: string,
  year: TaxYear,
  coin: string,
  page: { offset: number; limit: number },
): Promise<FuturesRecordRow[]> {
  const { rows } = await pool.query<FuturesRecordRow>(
    `SELECT record_id AS id, product_type::text AS "productType", (extract(epoch FROM ts) * 1000)::bigint::text AS ms,
            future_tax_type AS type, coalesce(symbol, '') AS symbol, amount::text, fee::text
       FROM futures_ledger_record
      WHERE account_id = $1::uuid AND margin_coin = $2 AND ts >= $3 AND ts < $4
        AND future_tax_type <> ALL($5::text[])
      ORDER BY ts, record_id, product_type
      LIMIT $6 OFFSET $7`,
    [accountId, coin, new Date(year.startMs), new Date(year.endMs), TRANSFER_TYPES, page.limit + 1, page.offset],
  );
  return rows;
}
