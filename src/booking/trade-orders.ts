import { byteOrder } from './sql-fragments.ts';

/**
 * How trade legs pair (docs/reports.md, "Trades"), as SQL shared by the tax-tool entries
 * (ledger-entries.ts) and the beancount journal (src/export/journal). Given a CTE `ledger`
 * (the period's records with `category` and `biz_order_id`), it defines:
 *   order_legs  every trade-type leg, over the account's whole stored history, of an order that has
 *               a trade leg in `ledger` (an order's legs may lie before or after the period)
 *   orders      the orders that pair: legs given (amount < 0) of one coin and legs received of
 *               another, none of amount 0, and either as many of each (`by_fill`) or one on one side
 *   numbered    the legs of those orders with their `fill`: the k-th given leg and the k-th received
 *               leg (in ts, id order) share fill k when `by_fill`, else every leg has fill 1
 * Window functions rather than joins between CTEs: Postgres has no statistics for a CTE and, on a
 * table not analyzed yet, plans such joins as nested loops (seconds for a year of records).
 * `account` and `tradeTypes` are bound parameters (uuid, text[] of the trade category's types).
 */
export function tradeOrderCtes(account: string, tradeTypes: string): string {
  return `order_legs AS (
      SELECT s.record_id, s.ts, s.coin, s.spot_tax_type, s.amount, s.fee, s.biz_order_id
      FROM spot_record s
      WHERE s.account_id = ${account} AND s.spot_tax_type = ANY(${tradeTypes}) AND s.biz_order_id <> ''
        AND s.biz_order_id IN (SELECT biz_order_id FROM ledger WHERE category = 'trade' AND biz_order_id <> '')
    ),
    order_shape AS (
      SELECT l.*,
             count(*) FILTER (WHERE amount < 0) OVER o AS outs, count(*) FILTER (WHERE amount > 0) OVER o AS ins,
             count(*) FILTER (WHERE amount = 0) OVER o AS zeros,
             min(coin) FILTER (WHERE amount < 0) OVER o AS out_coin, max(coin) FILTER (WHERE amount < 0) OVER o AS out_last,
             min(coin) FILTER (WHERE amount > 0) OVER o AS in_coin, max(coin) FILTER (WHERE amount > 0) OVER o AS in_last
      FROM order_legs l
      WINDOW o AS (PARTITION BY biz_order_id)
    ),
    numbered AS (
      SELECT record_id, ts, coin, spot_tax_type, amount, fee, biz_order_id, outs = ins AS by_fill,
             CASE WHEN outs = ins THEN row_number() OVER (
               PARTITION BY biz_order_id, amount > 0 ORDER BY ts, ${byteOrder('record_id')}) ELSE 1 END AS fill
      FROM order_shape
      WHERE zeros = 0 AND outs >= 1 AND ins >= 1 AND (outs = ins OR outs = 1 OR ins = 1)
        AND out_coin = out_last AND in_coin = in_last AND out_coin <> in_coin
    ),
    orders AS (
      SELECT DISTINCT biz_order_id, by_fill FROM numbered
    )`;
}
