import { byteOrder, enumOrRaw, localTime, unmappedCell, unmappedFlag, utcTime } from '../../booking/sql-fragments.ts';
import { accountAndPeriod, SqlParams } from '../../booking/sql-params.ts';
import { textSafeIdSql } from '../../booking/text-safe-ids.ts';
import type { SqlReportDefinition } from '../report-definition.ts';
import { decimal, text } from '../report-definition.ts';

/**
 * One row per closed futures position, booked in the period of its close (the record's last
 * update time, uTime). `coin` filters by margin coin.
 */
export const futuresPnlReport: SqlReportDefinition = {
  name: 'futures-pnl',
  title: 'Futures realized P&L',
  description: 'one row per closed futures position, booked at its close time',
  streams: ['positions'],
  accepts: { coin: true, includePending: false },
  columns: [
    text('position_id'),
    text('product_type'),
    text('symbol'),
    text('margin_coin'),
    text('hold_side'),
    text('pos_mode'),
    text('margin_mode'),
    decimal('open_avg_price'),
    decimal('close_avg_price'),
    decimal('open_total_pos'),
    decimal('close_total_pos'),
    decimal('pnl'),
    decimal('open_fee'),
    decimal('close_fee'),
    decimal('total_funding'),
    decimal('net_profit'),
    text('open_time_utc'),
    text('close_time_utc'),
    text('open_time_local'),
    text('close_time_local'),
    text('unmapped'),
  ],
  kind: 'sql',
  query(params) {
    const p = new SqlParams();
    const where = accountAndPeriod(p, params, 'updated_time');
    const coin = params.coin ? ` AND margin_coin = ${p.add(params.coin)}` : '';
    const sql = `SELECT ${textSafeIdSql('position', 'position_id')}, product_type::text, symbol, margin_coin,
        ${enumOrRaw('hold_side', 'holdSide')}, ${enumOrRaw('pos_mode', 'posMode')}, ${enumOrRaw('margin_mode', 'marginMode')},
        open_avg_price::text, close_avg_price::text, open_total_pos::text, close_total_pos::text,
        pnl::text, open_fee::text, close_fee::text, total_funding::text, net_profit::text,
        ${utcTime('created_time')}, ${utcTime('updated_time')}, ${localTime('created_time')}, ${localTime('updated_time')},
        ${unmappedCell()}, ${unmappedFlag()}
      FROM futures_position
      WHERE ${where}${coin}
      ORDER BY updated_time, ${byteOrder('position_id')}`;
    return { text: sql, values: p.values };
  },
};
