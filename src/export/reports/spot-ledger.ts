import { UNMAPPED_CATEGORY } from '../../booking/categories.ts';
import { bookingArrays } from '../../booking/spot-bookings.ts';
import { byteOrder, localTime, unixMs, unmappedCell, unmappedFlag, utcTime } from '../../booking/sql-fragments.ts';
import { accountAndPeriod, SqlParams } from '../../booking/sql-params.ts';
import { textSafeIdSql } from '../../booking/text-safe-ids.ts';
import type { SqlReportDefinition } from '../report-definition.ts';
import { decimal, text } from '../report-definition.ts';

/** Every spot finance record of the period, every field, with its accounting category; ids text-safe (text-safe-ids.ts). */
export const spotLedgerReport: SqlReportDefinition = {
  name: 'spot-ledger',
  title: 'Spot ledger',
  description: 'every spot finance record of the period with its accounting category',
  streams: ['spot'],
  accepts: { coin: true, includePending: false },
  statesOpeningBalances: true,
  columns: [
    text('record_id'),
    text('time_utc'),
    text('time_local'),
    text('ts_ms'),
    text('coin'),
    text('spot_tax_type'),
    text('category'),
    decimal('amount'),
    decimal('fee'),
    decimal('balance'),
    text('biz_order_id'),
    text('unmapped'),
  ],
  kind: 'sql',
  query(params) {
    // A lookup in the bound arrays rather than a join keeps the plan an index scan in ts order,
    // which streams from the first row instead of sorting the whole period first. The flag tests
    // membership with `= ANY`, which Postgres hashes for a constant array, where array_position
    // compares one type after another: 0.4 s of server CPU at a million rows (issue 15).
    const p = new SqlParams();
    const booking = bookingArrays();
    const where = accountAndPeriod(p, params, 'ts', 's');
    const types = p.add(booking.types, 'text[]');
    const categories = p.add(booking.categories, 'text[]');
    const coin = params.coin ? ` AND s.coin = ${p.add(params.coin)}` : '';
    const sql = `SELECT ${textSafeIdSql('spot', 's.record_id')}, ${utcTime('s.ts')}, ${localTime('s.ts')}, ${unixMs('s.ts')},
        s.coin, s.spot_tax_type, coalesce((${categories})[array_position(${types}, s.spot_tax_type)], '${UNMAPPED_CATEGORY}'),
        s.amount::text, s.fee::text, s.balance::text, ${textSafeIdSql('order', 's.biz_order_id')}, ${unmappedCell('s.unmapped')},
        coalesce(CASE WHEN NOT (s.spot_tax_type = ANY(${types})) THEN 'spotTaxType=' || s.spot_tax_type END,
          ${unmappedFlag('s.unmapped')})
      FROM spot_record s
      WHERE ${where}${coin}
      ORDER BY s.ts, ${byteOrder('s.record_id')}`;
    return { text: sql, values: p.values };
  },
};
