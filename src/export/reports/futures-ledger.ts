import { futuresBookingArrays } from '../../booking/futures-bookings.ts';
import { byteOrder, localTime, unixMs, unmappedCell, unmappedFlag, utcTime } from '../../booking/sql-fragments.ts';
import { accountAndPeriod, SqlParams } from '../../booking/sql-params.ts';
import { textSafeIdSql } from '../../booking/text-safe-ids.ts';
import type { SqlReportDefinition } from '../report-definition.ts';
import { decimal, text } from '../report-definition.ts';

/**
 * Every futures finance record of the period, every field, with its category (transfer,
 * realized-pnl, fee, funding, liquidation, other; a type outside the documented list is
 * `unmapped` and flagged). `change` is what the record moves its wallet by (amount + fee).
 * `coin` filters by margin coin. Ids text-safe (`futures:<id>`, text-safe-ids.ts).
 */
export const futuresLedgerReport: SqlReportDefinition = {
  name: 'futures-ledger',
  title: 'Futures ledger',
  description: 'every futures finance record of the period (transfers, realized pnl, fees, funding, liquidations)',
  streams: ['futures-ledger'],
  accepts: { coin: true, includePending: false },
  columns: [
    text('record_id'),
    text('time_utc'),
    text('time_local'),
    text('ts_ms'),
    text('product_type'),
    text('margin_coin'),
    text('symbol'),
    text('future_tax_type'),
    text('category'),
    decimal('amount'),
    decimal('fee'),
    decimal('change'),
    text('unmapped'),
  ],
  kind: 'sql',
  query(params) {
    const p = new SqlParams();
    const booking = futuresBookingArrays();
    const where = accountAndPeriod(p, params, 'ts', 'f');
    const types = p.add(booking.types, 'text[]');
    const categories = p.add(booking.categories, 'text[]');
    const coin = params.coin ? ` AND f.margin_coin = ${p.add(params.coin)}` : '';
    const sql = `SELECT ${textSafeIdSql('futures', 'f.record_id')}, ${utcTime('f.ts')}, ${localTime('f.ts')}, ${unixMs('f.ts')},
        f.product_type::text, f.margin_coin, f.symbol, f.future_tax_type,
        coalesce((${categories})[array_position(${types}, f.future_tax_type)], 'unmapped'),
        f.amount::text, f.fee::text, (f.amount + f.fee)::text, ${unmappedCell('f.unmapped')},
        coalesce(CASE WHEN NOT (f.future_tax_type = ANY(${types})) THEN 'futureTaxType=' || f.future_tax_type END,
          ${unmappedFlag('f.unmapped')})
      FROM futures_ledger_record f
      WHERE ${where}${coin}
      ORDER BY f.ts, ${byteOrder('f.record_id')}`;
    return { text: sql, values: p.values };
  },
};
