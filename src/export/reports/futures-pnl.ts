import { byteOrder, localTime, unixMs, unmappedCell, unmappedFlag, utcTime } from '../../booking/sql-fragments.ts';
import { SqlParams } from '../../booking/sql-params.ts';
import { textSafeIdSql } from '../../booking/text-safe-ids.ts';
import type { SqlReportDefinition } from '../report-definition.ts';
import { decimal, text } from '../report-definition.ts';
import { futuresResultRecordsSql } from './futures-results-sql.ts';

/**
 * One row per futures result of the period, from the futures ledger: a position's close (realized
 * P&L and its fee) or liquidation, an opening fee, a funding settlement, another record of the
 * futures wallets; transfers between spot and futures are not results and are left out. The
 * ledger keeps every record of the year where history-position keeps three months, so a year's
 * file is whole. `coin` filters by margin coin. A futureTaxType outside the documented list is
 * `unmapped` (amount in `other`) and flagged.
 */
export const futuresPnlReport: SqlReportDefinition = {
  name: 'futures-pnl',
  title: 'Futures realized P&L',
  description:
    'one row per futures result (close, liquidation, fee, funding, other) of the period, from the futures ledger',
  streams: ['futures-ledger'],
  accepts: { coin: true, includePending: false },
  columns: [
    text('record_id'),
    text('product_type'),
    text('symbol'),
    text('margin_coin'),
    text('future_tax_type'),
    text('category'),
    text('hold_side'),
    decimal('pnl'),
    decimal('fees'),
    decimal('funding'),
    decimal('other'),
    decimal('net'),
    text('time_utc'),
    text('time_local'),
    text('ts_ms'),
    text('unmapped'),
  ],
  kind: 'sql',
  query(params) {
    const p = new SqlParams();
    const records = futuresResultRecordsSql(p, params);
    const sql = `SELECT ${textSafeIdSql('futures', 'x.record_id')}, x.product_type::text, x.symbol, x.margin_coin,
        x.future_tax_type, x.category,
        CASE WHEN x.future_tax_type LIKE '%LONG%' THEN 'long' WHEN x.future_tax_type LIKE '%SHORT%' THEN 'short' ELSE '' END,
        x.pnl::text, x.fees::text, x.funding::text, x.other::text, x.net::text,
        ${utcTime('x.ts')}, ${localTime('x.ts')}, ${unixMs('x.ts')}, ${unmappedCell('x.unmapped')},
        coalesce(CASE WHEN x.category = 'unmapped' THEN 'futureTaxType=' || x.future_tax_type END,
          ${unmappedFlag('x.unmapped')})
      FROM (${records}) x
      ORDER BY x.ts, ${byteOrder('x.record_id')}`;
    return { text: sql, values: p.values };
  },
};
