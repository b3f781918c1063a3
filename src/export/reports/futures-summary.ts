import { byteOrder } from '../../booking/sql-fragments.ts';
import { SqlParams } from '../../booking/sql-params.ts';
import type { SqlReportDefinition } from '../report-definition.ts';
import { decimal, text } from '../report-definition.ts';
import { futuresResultRecordsSql } from './futures-results-sql.ts';

/**
 * Totals of futures-pnl: one row per (margin coin, symbol), then one total row per margin coin,
 * from the futures ledger (a year's file is whole). Summed by Postgres in numeric, so the totals
 * are exact. Amounts in different margin coins are never added together.
 */
export const futuresSummaryReport: SqlReportDefinition = {
  name: 'futures-summary',
  title: 'Futures P&L summary',
  description: 'totals per symbol and per margin coin of the futures results of the period, from the futures ledger',
  streams: ['futures-ledger'],
  accepts: { coin: true, includePending: false },
  columns: [
    text('level'),
    text('margin_coin'),
    text('symbol'),
    decimal('records'),
    decimal('closes'),
    decimal('pnl'),
    decimal('fees'),
    decimal('funding'),
    decimal('other'),
    decimal('net'),
  ],
  kind: 'sql',
  query(params) {
    const p = new SqlParams();
    const records = futuresResultRecordsSql(p, params);
    const sql = `SELECT CASE WHEN grouping(x.symbol) = 1 THEN 'margin_coin_total' ELSE 'symbol' END,
        x.margin_coin, coalesce(x.symbol, ''), count(*)::text,
        count(*) FILTER (WHERE x.category IN ('realized-pnl', 'liquidation'))::text,
        sum(x.pnl)::text, sum(x.fees)::text, sum(x.funding)::text, sum(x.other)::text, sum(x.net)::text,
        NULL::text
      FROM (${records}) x
      GROUP BY GROUPING SETS ((x.margin_coin, x.symbol), (x.margin_coin))
      ORDER BY ${byteOrder('x.margin_coin')}, grouping(x.symbol), ${byteOrder('x.symbol')}`;
    return { text: sql, values: p.values };
  },
};
