import type { ReportParams } from '../report-definition.ts';
import { bookingArrays } from '../spot-tax-types.ts';
import { byteOrder } from '../sql-fragments.ts';
import type { SqlParams } from '../sql-params.ts';

/** How far outside the period legs are read for pairing: the legs of one trade are moments apart. */
const PAIRING_MARGIN = "interval '1 hour'";

/**
 * The spot ledger turned into tax-tool entries, shared by the Koinly and CoinTracking reports so
 * both are built from exactly the same rows. It defines the CTE `entries` with, per entry:
 *   ts, sort_id            time and a unique key (the smallest record id) for a stable order
 *   sent_amount/_coin      what left the account, as a positive numeric
 *   received_amount/_coin  what arrived
 *   fee_amount/_coin       the fee, positive
 *   koinly_label, ct_type, category, spot_types, record_ids, biz_order_id
 *   flag                   'spotTaxType=...' for a type the mapping does not know, else null
 *
 * The two legs of one trade (category `trade`, same bizOrderId, exactly one leg out and one in,
 * at most one of them with a fee) become one entry, dated by its earlier leg, in that leg's
 * period even when the other leg falls in the next one; every other record is an entry of its own.
 * Signs come from the ledger's convention: amount + in / - out, fee 0 or negative. Negations are
 * done on numeric, so values keep their exact digits and scale.
 */
export function ledgerEntriesCte(p: SqlParams, params: ReportParams): string {
  const booking = bookingArrays();
  const start = p.add(params.period.start.toISOString(), 'timestamptz');
  const end = p.add(params.period.end.toISOString(), 'timestamptz');
  // Legs are paired over a margin around the period, so a trade whose legs straddle its start or
  // end is still one trade; the entries are then cut to the period by their own time.
  const where = `s.account_id = ${p.add(params.accountId, 'uuid')} AND s.ts >= ${start} - ${PAIRING_MARGIN} AND s.ts < ${end} + ${PAIRING_MARGIN}`;
  const coin = params.coin ? ` AND s.coin = ${p.add(params.coin)}` : '';
  const types = p.add(booking.types, 'text[]');
  const lookup = (values: string[]) => `(${p.add(values, 'text[]')})[k.i]`;
  return `WITH ledger AS (
      SELECT s.record_id, s.ts, s.coin, s.spot_tax_type, s.amount, s.fee, s.biz_order_id,
             ${lookup(booking.categories)} AS category,
             ${lookup(booking.koinlyIn)} AS koinly_in, ${lookup(booking.koinlyOut)} AS koinly_out,
             ${lookup(booking.coinTrackingIn)} AS ct_in, ${lookup(booking.coinTrackingOut)} AS ct_out
      FROM spot_record s
      CROSS JOIN LATERAL (SELECT array_position(${types}, s.spot_tax_type) AS i) AS k
      WHERE ${where}${coin}
    ),
    trade_groups AS (
      SELECT biz_order_id FROM ledger
      WHERE category = 'trade' AND biz_order_id <> ''
      GROUP BY biz_order_id
      HAVING count(*) = 2 AND count(*) FILTER (WHERE amount < 0) = 1 AND count(*) FILTER (WHERE amount > 0) = 1
         AND count(*) FILTER (WHERE fee <> 0) <= 1
    ),
    all_entries AS (
      SELECT least(o.ts, i.ts) AS ts,
             least(${byteOrder('o.record_id')}, ${byteOrder('i.record_id')}) AS sort_id,
             -o.amount AS sent_amount, o.coin AS sent_coin,
             i.amount AS received_amount, i.coin AS received_coin,
             CASE WHEN o.fee <> 0 THEN -o.fee WHEN i.fee <> 0 THEN -i.fee END AS fee_amount,
             CASE WHEN o.fee <> 0 THEN o.coin WHEN i.fee <> 0 THEN i.coin END AS fee_coin,
             '' AS koinly_label, 'Trade' AS ct_type, 'trade' AS category,
             CASE WHEN o.spot_tax_type = i.spot_tax_type THEN o.spot_tax_type
                  ELSE o.spot_tax_type || ' / ' || i.spot_tax_type END AS spot_types,
             o.record_id || '+' || i.record_id AS record_ids, o.biz_order_id, NULL::text AS flag
      FROM trade_groups g
      JOIN ledger o ON o.biz_order_id = g.biz_order_id AND o.category = 'trade' AND o.amount < 0
      JOIN ledger i ON i.biz_order_id = g.biz_order_id AND i.category = 'trade' AND i.amount > 0
      UNION ALL
      SELECT l.ts, ${byteOrder('l.record_id')},
             CASE WHEN l.amount < 0 THEN -l.amount WHEN l.amount = 0 AND l.fee <> 0 THEN -l.fee END,
             CASE WHEN l.amount < 0 OR (l.amount = 0 AND l.fee <> 0) THEN l.coin END,
             CASE WHEN l.amount > 0 OR (l.amount = 0 AND l.fee = 0) THEN l.amount END,
             CASE WHEN l.amount > 0 OR (l.amount = 0 AND l.fee = 0) THEN l.coin END,
             CASE WHEN l.amount <> 0 AND l.fee <> 0 THEN -l.fee END,
             CASE WHEN l.amount <> 0 AND l.fee <> 0 THEN l.coin END,
             CASE WHEN l.amount > 0 THEN coalesce(l.koinly_in, '') WHEN l.amount < 0 THEN coalesce(l.koinly_out, '')
                  WHEN l.fee <> 0 THEN 'cost' ELSE '' END,
             CASE WHEN l.amount > 0 THEN coalesce(l.ct_in, 'Deposit') WHEN l.amount < 0 THEN coalesce(l.ct_out, 'Withdrawal')
                  WHEN l.fee <> 0 THEN 'Other Fee' ELSE 'Deposit' END,
             coalesce(l.category, 'unmapped'), l.spot_tax_type, l.record_id, l.biz_order_id,
             CASE WHEN l.category IS NULL THEN 'spotTaxType=' || l.spot_tax_type END
      FROM ledger l
      WHERE NOT (coalesce(l.category, '') = 'trade' AND l.biz_order_id IN (SELECT biz_order_id FROM trade_groups))
    ),
    entries AS (SELECT * FROM all_entries WHERE ts >= ${start} AND ts < ${end})`;
}

/** A human description of an entry: its record types, category, record ids and order id. */
export const ENTRY_DESCRIPTION = `spot_types || ' [' || category || '] record ' || record_ids
  || CASE WHEN biz_order_id <> '' THEN ' order ' || biz_order_id ELSE '' END`;

export const ENTRY_ORDER = 'ORDER BY ts, sort_id';
