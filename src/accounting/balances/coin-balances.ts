import type pg from 'pg';

import { bookingArrays } from '../../booking/spot-bookings.ts';
import { BalanceTieOutError } from './balance-tie-out-error.ts';

/** One coin's movement over a period, every amount as Postgres' exact numeric text. */
export interface CoinBalance {
  readonly coin: string;
  /**
   * The exchange's balance after the coin's last record before the period. Without one (the stored
   * history starts after the account's start), the balance before the coin's first stored record:
   * its `balance` less its amount and fee (0 when the history starts with the account).
   */
  readonly opening: string;
  /** The opening came from the first stored record, not from one before the period (and is not 0): say so. */
  readonly openingFromFirstRecord: boolean;
  /** Sum of the positive amounts of the period. */
  readonly inflows: string;
  /** Sum of the negative amounts (negative or 0). */
  readonly outflows: string;
  /** Sum of the fees (negative or 0): the exchange charges them besides the amount. */
  readonly fees: string;
  /** opening + inflows + outflows + fees, which the exchange's own balance has been checked against. */
  readonly closing: string;
  readonly records: string;
  readonly tradesIn: string;
  readonly tradesOut: string;
  readonly deposits: string;
  readonly withdrawals: string;
  /** Positive amounts of categories income, rebate, refund and copy-trading. */
  readonly income: string;
  /** inflows - tradesIn - deposits - income. */
  readonly otherIn: string;
  /** outflows - tradesOut - withdrawals. */
  readonly otherOut: string;
}

/**
 * Every coin's opening balance, movements and closing balance over [start, end), in one query.
 *
 * The exchange's `balance` on a record is the coin's balance after it, fee included (the
 * simulator keeps balance = previous + amount + fee, docs/exchange-api.md §5.4). So the opening
 * balance is the `balance` of the coin's last record before `start` (without one, as the stored
 * history may start after the account's, the balance before its first record: issue 34), and the closing balance
 * computed from the records must equal the `balance` of its last record before `end`: they are
 * compared in Postgres (numeric, exact) and a coin that differs throws `BalanceTieOutError`.
 * "Last" is the exchange's order: ts, then the id's numeric order (length, then bytes), as the
 * reconciliation's continuity check orders them.
 *
 * A coin gets a row when it has a record in the period or a non-zero opening balance. The query
 * aggregates (one row per coin), so memory is flat in the number of records.
 */
export async function* coinBalances(
  db: pg.ClientBase,
  options: { accountId: string; start: Date; end: Date; coin?: string | undefined },
): AsyncGenerator<CoinBalance> {
  const booking = bookingArrays();
  const { rows } = await db.query<CoinBalance & { exchangeClosing: string; ties: boolean }>(BALANCES_SQL, [
    options.accountId,
    options.start.toISOString(),
    options.end.toISOString(),
    options.coin ?? null,
    booking.types,
    booking.categories,
  ]);
  for (const row of rows) {
    if (!row.ties) throw new BalanceTieOutError(row.coin, row.closing, row.exchangeClosing);
    const { exchangeClosing: _exchange, ties: _ties, ...balance } = row;
    yield balance;
  }
}

// $1 account, $2 start, $3 end, $4 coin or null, $5/$6 the booking table's types and categories.
const BALANCES_SQL = `
WITH opening AS (
  SELECT DISTINCT ON (coin) coin, balance
  FROM spot_record
  WHERE account_id = $1::uuid AND ts < $2::timestamptz AND ($4::text IS NULL OR coin = $4::text)
  ORDER BY coin, ts DESC, length(record_id) DESC, record_id COLLATE "C" DESC
),
period AS (
  SELECT s.coin, s.amount, s.fee, s.balance, s.ts, s.record_id,
         ($6::text[])[array_position($5::text[], s.spot_tax_type)] AS category
  FROM spot_record s
  WHERE s.account_id = $1::uuid AND s.ts >= $2::timestamptz AND s.ts < $3::timestamptz
    AND ($4::text IS NULL OR s.coin = $4::text)
),
moved AS (
  SELECT coin,
         count(*) AS records,
         coalesce(sum(amount) FILTER (WHERE amount > 0), 0) AS inflows,
         coalesce(sum(amount) FILTER (WHERE amount < 0), 0) AS outflows,
         coalesce(sum(fee), 0) AS fees,
         coalesce(sum(amount) FILTER (WHERE amount > 0 AND category = 'trade'), 0) AS trades_in,
         coalesce(sum(amount) FILTER (WHERE amount < 0 AND category = 'trade'), 0) AS trades_out,
         coalesce(sum(amount) FILTER (WHERE amount > 0 AND category = 'deposit'), 0) AS deposits,
         coalesce(sum(amount) FILTER (WHERE amount < 0 AND category = 'withdrawal'), 0) AS withdrawals,
         coalesce(sum(amount) FILTER (
           WHERE amount > 0 AND category IN ('income', 'rebate', 'refund', 'copy-trading')), 0) AS income,
         (array_agg(balance ORDER BY ts DESC, length(record_id) DESC, record_id COLLATE "C" DESC))[1] AS last_balance,
         (array_agg(balance - amount - fee ORDER BY ts, length(record_id), record_id COLLATE "C"))[1] AS first_opening
  FROM period
  GROUP BY coin
),
joined AS (
  SELECT coalesce(m.coin, o.coin) AS coin, coalesce(o.balance, CASE WHEN m.first_opening <> 0 THEN m.first_opening END, 0) AS opening,
         (o.balance IS NULL AND m.first_opening <> 0) AS from_first,
         coalesce(m.inflows, 0) AS inflows, coalesce(m.outflows, 0) AS outflows, coalesce(m.fees, 0) AS fees,
         coalesce(m.records, 0) AS records,
         coalesce(m.trades_in, 0) AS trades_in, coalesce(m.trades_out, 0) AS trades_out,
         coalesce(m.deposits, 0) AS deposits, coalesce(m.withdrawals, 0) AS withdrawals,
         coalesce(m.income, 0) AS income,
         coalesce(m.last_balance, o.balance, 0) AS exchange_closing
  FROM moved m FULL JOIN opening o ON o.coin = m.coin
  WHERE m.coin IS NOT NULL OR o.balance <> 0
)
SELECT coin, opening::text AS opening, inflows::text AS inflows, outflows::text AS outflows, fees::text AS fees,
       (opening + inflows + outflows + fees)::text AS closing, exchange_closing::text AS "exchangeClosing",
       opening + inflows + outflows + fees = exchange_closing AS ties, coalesce(from_first, false) AS "openingFromFirstRecord",
       records::text AS records, trades_in::text AS "tradesIn", trades_out::text AS "tradesOut",
       deposits::text AS deposits, withdrawals::text AS withdrawals, income::text AS income,
       (inflows - trades_in - deposits - income)::text AS "otherIn",
       (outflows - trades_out - withdrawals)::text AS "otherOut"
FROM joined
ORDER BY coin COLLATE "C"`;
