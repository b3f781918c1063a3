import { futuresBookingArrays } from './futures-bookings.ts';
import { byteOrder } from './sql-fragments.ts';
import type { SqlParams } from './sql-params.ts';
import { ID_KINDS, textSafeIdSql } from './text-safe-ids.ts';

const futuresId = (column: string) => textSafeIdSql('futures', column);

/**
 * The futures wallet's CTEs, placed before `all_entries` (ledger-entries.ts):
 *   futures_ledger   the period's futures finance records with their category (futures-bookings.ts)
 *   futures_start    the account's first stored futures record: the ledger covers from there on
 *   transfer_pairs   each futures TRANSFER_IN/OUT with its spot `Transfer out`/`Transfer in`: same
 *                    coin, same instant, opposite change (docs/exchange-api.md §5.7); the k-th of a
 *                    (coin, instant, amount) on one side with the k-th on the other
 * Materialized: each is computed once (inlined, the planner re-ran a window over spot_record per row).
 */
export function futuresCtes(p: SqlParams, account: string, start: string, end: string): string {
  const booking = futuresBookingArrays();
  const types = p.add(booking.types, 'text[]');
  const categories = p.add(booking.categories, 'text[]');
  return `futures_ledger AS (
      SELECT f.record_id, f.ts, f.margin_coin AS coin, f.symbol, f.future_tax_type, f.amount, f.fee,
             coalesce((${categories})[array_position(${types}, f.future_tax_type)], 'unmapped') AS category
      FROM futures_ledger_record f
      WHERE f.account_id = ${account} AND f.ts >= ${start} AND f.ts < ${end}
    ),
    futures_start AS MATERIALIZED (SELECT min(ts) AS ts FROM futures_ledger_record WHERE account_id = ${account}),
    spot_moves AS MATERIALIZED (
      SELECT record_id, coin, ts, amount + fee AS change,
             row_number() OVER (PARTITION BY coin, ts, amount + fee ORDER BY ${byteOrder('record_id')}) AS k
      FROM spot_record
      WHERE account_id = ${account} AND ts >= ${start} AND ts < ${end}
        AND spot_tax_type IN ('Transfer in', 'Transfer out')
    ),
    futures_moves AS MATERIALIZED (
      SELECT record_id, coin, ts, amount + fee AS change,
             row_number() OVER (PARTITION BY coin, ts, amount + fee ORDER BY ${byteOrder('record_id')}) AS k
      FROM futures_ledger WHERE category = 'transfer'
    ),
    transfer_pairs AS MATERIALIZED (
      SELECT f.record_id, s.record_id AS spot_id
      FROM futures_moves f JOIN spot_moves s ON s.coin = f.coin AND s.ts = f.ts AND s.change = -f.change AND s.k = f.k
    )`;
}

/**
 * The futures wallet as ledger entries, in the columns of `all_entries` (ledger-entries.ts), wallet
 * `futures` (one wallet, its coins the margin coins: docs/reports.md, "Two wallets").
 *
 * From the futures ledger (every record of the period, from the account's first stored futures
 * record on): a transfer is `futures-in` / `futures-out`, the other side of a spot `Transfer out` /
 * `Transfer in` (pair_id: the spot row's id, which Koinly's transfer matching wants on both sides);
 * a realized result, funding, liquidation or other record is `futures-gain` (amount ≥ 0, received)
 * or `futures-loss` (sent, its fee in the fee column); a record moving only its fee (an open) is a
 * `fee` row; the fee of a record bringing coins in is a `fee` row of its own (`futures:<id>:fee`), as
 * on spot. Signs: amount + in / - out, fee ≤ 0.
 *
 * Before the ledger's first record (a period the ledger does not reach) the results come from the
 * closed positions as before: each position closed in the period (its uTime) is one realized
 * profit-or-loss row in its margin coin, pnl + openFee + closeFee, and its funding a second row
 * (`position:<id>`, `position:<id>:funding`).
 */
export function futuresEntries(account: string, start: string, end: string): string {
  const id = futuresId('l.record_id');
  const position = `${textSafeIdSql('position', 'f.position_id')} || r.suffix`;
  return `SELECT l.ts, ${byteOrder('l.record_id')},
             CASE WHEN l.amount < 0 THEN -l.amount WHEN l.amount = 0 AND l.fee <> 0 THEN -l.fee END,
             CASE WHEN l.amount < 0 OR (l.amount = 0 AND l.fee <> 0) THEN l.coin END,
             CASE WHEN l.amount > 0 OR (l.amount = 0 AND l.fee = 0) THEN l.amount END,
             CASE WHEN l.amount > 0 OR (l.amount = 0 AND l.fee = 0) THEN l.coin END,
             CASE WHEN l.amount < 0 AND l.fee <> 0 THEN -l.fee END,
             CASE WHEN l.amount < 0 AND l.fee <> 0 THEN l.coin END,
             CASE WHEN l.amount = 0 AND l.fee <> 0 THEN 'fee'
                  WHEN l.category = 'transfer' THEN CASE WHEN l.amount > 0 THEN 'futures-in' ELSE 'futures-out' END
                  WHEN l.amount >= 0 THEN 'futures-gain' ELSE 'futures-loss' END,
             NULL::integer, 'futures', trim(l.future_tax_type || ' ' || l.symbol) || ' ' || l.category,
             ${id}, '', CASE WHEN l.category = 'unmapped' THEN 'futureTaxType=' || l.future_tax_type END,
             ${id}, NULL::numeric, NULL::text, NULL::text, false, 'futures', CASE WHEN t.spot_id IS NOT NULL THEN '${ID_KINDS.spot}' || t.spot_id END
      FROM futures_ledger l LEFT JOIN transfer_pairs t USING (record_id)
      UNION ALL
      SELECT l.ts, ${byteOrder(`l.record_id || ':fee'`)}, -l.fee, l.coin, NULL, NULL, NULL, NULL, 'fee', NULL,
             'futures', trim(l.future_tax_type || ' ' || l.symbol) || ' ' || l.category || ' fee', ${id} || ':fee', '',
             NULL, ${id} || ':fee', NULL, NULL, NULL, false, 'futures', NULL
      FROM futures_ledger l
      WHERE l.amount > 0 AND l.fee <> 0
      UNION ALL
      SELECT f.updated_time, ${position} COLLATE "C",
             CASE WHEN r.value < 0 THEN -r.value END, CASE WHEN r.value < 0 THEN f.margin_coin END,
             CASE WHEN r.value >= 0 THEN r.value END, CASE WHEN r.value >= 0 THEN f.margin_coin END,
             NULL::numeric, NULL::text,
             CASE WHEN r.value >= 0 THEN 'futures-gain' ELSE 'futures-loss' END, NULL::integer,
             'futures', r.what || ' ' || f.symbol || coalesce(' ' || f.hold_side::text, ''),
             ${position}, '', NULL::text, ${position}, NULL::numeric, NULL::text, NULL::text, false, 'futures', NULL
      FROM futures_position f
      CROSS JOIN LATERAL (VALUES
        ('realized P&L after fees', f.pnl + f.open_fee + f.close_fee, ''),
        ('funding', f.total_funding, ':funding')) AS r(what, value, suffix)
      WHERE f.account_id = ${account} AND f.updated_time >= ${start} AND f.updated_time < ${end}
        AND f.updated_time < coalesce((SELECT ts FROM futures_start), 'infinity'::timestamptz)
        AND (r.suffix = '' OR f.total_funding <> 0)`;
}
