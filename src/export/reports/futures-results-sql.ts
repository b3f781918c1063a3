import { futuresBookingArrays } from '../../booking/futures-bookings.ts';
import { accountAndPeriod, type SqlParams } from '../../booking/sql-params.ts';
import type { ReportParams } from '../report-definition.ts';

/**
 * The futures results of a period as SQL over the futures ledger (docs/exchange-api.md §5.7),
 * shared by futures-pnl (a row per record) and futures-summary (its sums): every record but the
 * transfers, with its category (futures-bookings.ts) and its amounts split as futures-results.ts
 * splits them: `pnl` (realized-pnl and liquidation amounts), `fees` (every fee, and the amount of
 * the fee records), `funding`, `other` (other and unmapped types); `net` = amount + fee.
 */
export function futuresResultRecordsSql(p: SqlParams, params: ReportParams): string {
  const booking = futuresBookingArrays();
  const where = accountAndPeriod(p, params, 'ts', 'f');
  const types = p.add(booking.types, 'text[]');
  const categories = p.add(booking.categories, 'text[]');
  const coin = params.coin ? ` AND f.margin_coin = ${p.add(params.coin)}` : '';
  return `SELECT r.*,
        CASE WHEN r.category IN ('realized-pnl', 'liquidation') THEN r.amount ELSE 0 END AS pnl,
        r.fee + CASE WHEN r.category = 'fee' THEN r.amount ELSE 0 END AS fees,
        CASE WHEN r.category = 'funding' THEN r.amount ELSE 0 END AS funding,
        CASE WHEN r.category IN ('other', 'unmapped') THEN r.amount ELSE 0 END AS other,
        r.amount + r.fee AS net
      FROM (SELECT f.*, coalesce((${categories})[array_position(${types}, f.future_tax_type)], 'unmapped') AS category
            FROM futures_ledger_record f
            WHERE ${where}${coin}) r
      WHERE r.category <> 'transfer'`;
}
