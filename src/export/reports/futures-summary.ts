import { byteOrder } from '../../booking/sql-fragments.ts';
import { accountAndPeriod, SqlParams } from '../../booking/sql-params.ts';
import type { SqlReportDefinition } from '../report-definition.ts';
import { decimal, text } from '../report-definition.ts';

/**
 * Totals of the futures P&L report: one row per (margin coin, symbol), then one total row per
 * margin coin. Summed by Postgres in numeric, so the totals are exact. Amounts in different
 * margin coins are never added together.
 */
export const futuresSummaryReport: SqlReportDefinition = {
  name: 'futures-summary',
  title: 'Futures P&L summary',
  description: 'totals per symbol and per margin coin of the positions closed in the period',
  streams: ['positions'],
  accepts: { coin: true, includePending: false },
  columns: [
    text('level'),
    text('margin_coin'),
    text('symbol'),
    decimal('positions'),
    decimal('pnl'),
    decimal('open_fee'),
    decimal('close_fee'),
    decimal('total_funding'),
    decimal('net_profit'),
  ],
  kind: 'sql',
  query(params) {
    const p = new SqlParams();
    const where = accountAndPeriod(p, params, 'updated_time');
    const coin = params.coin ? ` AND margin_coin = ${p.add(params.coin)}` : '';
    const sql = `SELECT CASE WHEN grouping(symbol) = 1 THEN 'margin_coin_total' ELSE 'symbol' END,
        margin_coin, coalesce(symbol, ''), count(*)::text,
        sum(pnl)::text, sum(open_fee)::text, sum(close_fee)::text, sum(total_funding)::text, sum(net_profit)::text,
        NULL::text
      FROM futures_position
      WHERE ${where}${coin}
      GROUP BY GROUPING SETS ((margin_coin, symbol), (margin_coin))
      ORDER BY ${byteOrder('margin_coin')}, grouping(symbol), ${byteOrder('symbol')}`;
    return { text: sql, values: p.values };
  },
};
