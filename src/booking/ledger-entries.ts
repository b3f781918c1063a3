import { OMITTED_PREFIX, REVIEW_PREFIX, UNPAIRED_LEG } from './entry-flags.ts';
import { futuresCtes, futuresEntries } from './futures-entries.ts';
import { bookingArrays } from './spot-bookings.ts';
import { byteOrder } from './sql-fragments.ts';
import type { SqlParams } from './sql-params.ts';
import { ID_KINDS, textSafeIdSql } from './text-safe-ids.ts';
import { tradeOrderCtes } from './trade-orders.ts';
import { walletLedgerCtes, walletLedgerEntries } from './wallet-entries.ts';

const spotId = (column: string) => textSafeIdSql('spot', column);

/** Which entries: an account's, in a period (UTC bounds), optionally only those moving one coin. */
export interface EntryScope {
  readonly accountId: string;
  readonly period: { readonly start: Date; readonly end: Date };
  readonly coin?: string | undefined;
  /**
   * Only the records at these instants (Unix ms) seed the ledger (the trade prices' incremental
   * refresh): their orders are still paired from all their legs, wherever those lie.
   */
  readonly instants?: readonly string[] | undefined;
}

export interface EntryOptions {
  /** Koinly: a third-coin fee on its trade's row, found in the fee coin's file too. */
  readonly thirdFeeOnTrade?: boolean;
  /**
   * Also the margin and P2P wallets' entries (wallet-entries.ts): what the gains walk reads, so its
   * lots follow all four wallets. The tax-tool files ask for them when they write those wallets.
   */
  readonly walletLedgers?: boolean;
}

/**
 * The spot ledger turned into entries, shared by the tax-tool reports (each labels them in its own
 * dialect: tax-tool-labels.ts), the realized gains and the trade prices, so all are built from
 * exactly the same rows. It defines the CTE `entries` with, per entry:
 *   ts, sort_id            time and the smallest record id, for a stable order (ENTRY_ORDER)
 *   sent_amount/_coin      what left the account, as a positive numeric
 *   received_amount/_coin  what arrived
 *   fee_amount/_coin       the fee, positive
 *   movement               what the entry does (tax-tool-labels.ts: trade, in, out, fee, none, futures-…)
 *   booking_index          the record's position in the booking table (spot-bookings.ts), null for an
 *                          unknown type, a trade or a futures result
 *   category, spot_types, biz_order_id
 *   record_ids             the records it books, in their file form (`spot:a+spot:b`, text-safe-ids.ts)
 *   row_id                 the entry's own id, stable across exports (below)
 *   third_fee_amount/_coin/_ids   a trade's fee paid in a third coin (below), null otherwise
 *   attached               true for the record of such a fee: a dialect that puts the fee on its
 *                          trade's row (Koinly) leaves this entry out, the others write it
 *   wallet                 `spot`, `futures` (futures-entries.ts), `margin` or `p2p` (wallet-entries.ts)
 *   pair_id                a futures transfer's spot counterpart (`spot:<id>`), null otherwise
 *   flag                   'spotTaxType=...' for a type the mapping does not know, 'unpaired-leg'
 *                          for a trade-type record that could not be paired, 'omitted:<type>' for
 *                          a record the tax tools must not see, 'review:<type>' for a booking an
 *                          accountant should confirm (both: spot-tax-types.ts), else null
 * and the futures wallet's entries (futures-entries.ts): the futures ledger's records, or before
 * it the closed positions' results. Moves between spot and futures are rows on both sides. With
 * `walletLedgers`, the margin and P2P wallets' entries too (wallet-entries.ts).
 *
 * Trades (docs/reports.md, "Trades"): the records of category `trade` sharing a bizOrderId are one
 * order, found over the account's whole stored history, wherever its legs lie. An order pairs when
 * it has legs given away (amount < 0) of one coin and legs received of another coin, and either as
 * many of each (one entry per fill: the k-th given leg with the k-th received leg, in (ts, id)
 * order) or exactly one on one side (one entry for the order, the other side summed). An entry is
 * dated by its earliest leg and lies in that leg's period only, so consecutive periods hold every
 * record exactly once. Fees: the received side's fee fills the fee column, else the given side's;
 * when both sides carry one, the given side's fee is added to the sent amount (a disposal of
 * amount + fee for what was received, the same gain). Every other record is an entry of its own; a
 * trade-type record that does not pair is one too, flagged `unpaired-leg`. Such an entry bringing
 * coins in never carries a fee (Koinly rejects a deposit with a fee): its fee is an entry of its
 * own (`<record id>:fee`, movement `fee`).
 * Third-coin fees: a record of category `fee` taking coins out with the bizOrderId of a paired order
 * (BGB `Transaction fee deduct`, exchange-api.md §5.4.1: the fill's ts) is that fill's fee when the
 * fill has no fee of its own and the coin is neither of its sides: the k-th such record of an
 * (order, ts) goes with the k-th fee-less fill of that (order, ts). It stays an entry of its own too.
 * Row ids: a trade is named by its earliest given leg, which a later leg of the same order never
 * changes (a fill's legs are fixed; an order summed on one side keeps its first given leg), and
 * which is also the row's id while that leg is unpaired; any other entry by its record id
 * (`<id>:fee` for a fee row, `position:<id>[:funding]` for futures). Same record, same row id.
 * With a coin, the entries are those moving that coin on any side: a trade keeps both its sides.
 * Signs come from the ledger's convention: amount + in / - out, fee 0 or negative. Negations are
 * done on numeric, so values keep their exact digits and scale.
 */
export function ledgerEntriesCte(p: SqlParams, params: EntryScope, options: EntryOptions = {}): string {
  const booking = bookingArrays();
  const account = p.add(params.accountId, 'uuid');
  const start = p.add(params.period.start.toISOString(), 'timestamptz');
  const end = p.add(params.period.end.toISOString(), 'timestamptz');
  // A dialect that writes third-coin fees on the trade's row (Koinly) finds that row in the fee coin's file too.
  const coins = options.thirdFeeOnTrade
    ? 'sent_coin, received_coin, fee_coin, third_fee_coin'
    : 'sent_coin, received_coin, fee_coin';
  const instants = params.instants
    ? ` AND s.ts = ANY(ARRAY(SELECT timestamptz 'epoch' + ms * interval '1 millisecond'
                               FROM unnest(${p.add(params.instants, 'bigint[]')}) AS ms))`
    : '';
  const coin = params.coin ? `WHERE ${p.add(params.coin)} IN (${coins})` : '';
  const types = p.add(booking.types, 'text[]');
  const tradeTypes = p.add(
    booking.types.filter((_, i) => booking.categories[i] === 'trade'),
    'text[]',
  );
  const lookup = (values: string[]) => `(${p.add(values, 'text[]')})[k.i]`;
  return `WITH ledger AS (
      SELECT s.record_id, s.ts, s.coin, s.spot_tax_type, s.amount, s.fee, s.biz_order_id,
             ${lookup(booking.categories)} AS category, k.i AS booking_index,
             (${p.add(booking.omitted, 'boolean[]')})[k.i] AS omitted,
             (${p.add(booking.review, 'boolean[]')})[k.i] AS review
      FROM spot_record s
      CROSS JOIN LATERAL (SELECT array_position(${types}, s.spot_tax_type) AS i) AS k
      WHERE s.account_id = ${account} AND s.ts >= ${start} AND s.ts < ${end}${instants}
    ),
    ${tradeOrderCtes(account, tradeTypes)},
    fills AS (
      SELECT biz_order_id, min(ts) AS ts, min(${byteOrder('record_id')}) AS sort_id,
             sum(-amount) FILTER (WHERE amount < 0) AS given, min(coin) FILTER (WHERE amount < 0) AS given_coin,
             sum(-fee) FILTER (WHERE amount < 0 AND fee <> 0) AS given_fee,
             sum(amount) FILTER (WHERE amount > 0) AS received, min(coin) FILTER (WHERE amount > 0) AS received_coin,
             sum(-fee) FILTER (WHERE amount > 0 AND fee <> 0) AS received_fee,
             min(spot_tax_type) FILTER (WHERE amount < 0) AS given_type,
             min(spot_tax_type) FILTER (WHERE amount > 0) AS received_type,
             string_agg(${spotId('record_id')}, '+' ORDER BY amount > 0, ts, ${byteOrder('record_id')}) AS record_ids,
             (array_agg(record_id ORDER BY ts, ${byteOrder('record_id')}) FILTER (WHERE amount < 0))[1] AS first_given,
             fill
      FROM numbered
      GROUP BY biz_order_id, fill
    ),
    -- A fill's third-coin fee (the k-th fee deduct of its order and ts with its k-th fee-less fill)
    -- and the fill's row with it are found by grouping and a window, not by joins: Postgres has no
    -- statistics for a CTE, plans a join between two as a nested loop, and on a year of trades
    -- that loop was most of the walk's read (trade-orders.ts says the same of the trades' pairing).
    fee_pairing AS (
      SELECT biz_order_id, ts, fill, given_coin, received_coin,
             NULL::text AS record_id, NULL::numeric AS amount, NULL::text AS coin,
             row_number() OVER (PARTITION BY biz_order_id, ts ORDER BY sort_id) AS k
      FROM fills
      WHERE given_fee IS NULL AND received_fee IS NULL AND ts >= ${start} AND ts < ${end}
      UNION ALL
      SELECT l.biz_order_id, l.ts, NULL, NULL, NULL, l.record_id, -l.amount, l.coin,
             row_number() OVER (PARTITION BY l.biz_order_id, l.ts ORDER BY ${byteOrder('l.record_id')})
      FROM ledger l
      WHERE l.category = 'fee' AND l.amount < 0 AND l.fee = 0 AND l.biz_order_id <> ''
    ),
    third_fees AS (
      SELECT biz_order_id, max(fill) AS fill, max(record_id) AS record_id, max(amount) AS amount, max(coin) AS coin
      FROM fee_pairing
      GROUP BY biz_order_id, ts, k
      HAVING count(fill) = 1 AND count(record_id) = 1
         AND max(coin) <> max(given_coin) AND max(coin) <> max(received_coin)
    ),
    trade_fills AS (
      SELECT * FROM (
        SELECT u.*, max(u.third_amount) OVER w AS third_fee_amount, max(u.third_coin) OVER w AS third_fee_coin,
               max(u.third_record_id) OVER w AS third_fee_record_id
        FROM (
          SELECT fills.*, true AS is_fill, NULL::numeric AS third_amount, NULL::text AS third_coin,
                 NULL::text AS third_record_id
          FROM fills
          WHERE ts >= ${start} AND ts < ${end}
          UNION ALL
          SELECT biz_order_id, NULL, ${byteOrder('NULL::text')}, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                 NULL, fill, false, amount, coin, record_id
          FROM third_fees
        ) u
        WINDOW w AS (PARTITION BY u.biz_order_id, u.fill)
      ) paired
      WHERE is_fill
    ),
    ${futuresCtes(p, account, start, end)},${
      options.walletLedgers
        ? `
    ${walletLedgerCtes(p, account, start, end)},`
        : ''
    }
    all_entries AS (
      SELECT ts, sort_id,
             CASE WHEN given_fee IS NOT NULL AND received_fee IS NOT NULL THEN given + given_fee ELSE given END
               AS sent_amount,
             given_coin AS sent_coin, received AS received_amount, received_coin,
             coalesce(received_fee, given_fee) AS fee_amount,
             CASE WHEN received_fee IS NOT NULL THEN received_coin WHEN given_fee IS NOT NULL THEN given_coin END
               AS fee_coin,
             'trade' AS movement, NULL::integer AS booking_index, 'trade' AS category,
             CASE WHEN given_type = received_type THEN given_type ELSE given_type || ' / ' || received_type END
               || CASE WHEN given_fee IS NOT NULL AND received_fee IS NOT NULL
                       THEN ' (sent includes its fee ' || given_fee::text || ')' ELSE '' END AS spot_types,
             record_ids, biz_order_id, NULL::text AS flag,
             ${spotId('first_given')} AS row_id, third_fee_amount, third_fee_coin,
             '${ID_KINDS.spot}' || third_fee_record_id AS third_fee_ids, false AS attached,
             'spot' AS wallet, NULL::text AS pair_id
      FROM trade_fills
      UNION ALL
      SELECT l.ts, ${byteOrder('l.record_id')},
             CASE WHEN l.amount < 0 THEN -l.amount WHEN l.amount = 0 AND l.fee <> 0 THEN -l.fee END,
             CASE WHEN l.amount < 0 OR (l.amount = 0 AND l.fee <> 0) THEN l.coin END,
             CASE WHEN l.amount > 0 OR (l.amount = 0 AND l.fee = 0) THEN l.amount END,
             CASE WHEN l.amount > 0 OR (l.amount = 0 AND l.fee = 0) THEN l.coin END,
             CASE WHEN l.amount < 0 AND l.fee <> 0 THEN -l.fee END,
             CASE WHEN l.amount < 0 AND l.fee <> 0 THEN l.coin END,
             CASE WHEN l.amount > 0 THEN 'in' WHEN l.amount < 0 THEN 'out' WHEN l.fee <> 0 THEN 'fee' ELSE 'none' END,
             l.booking_index,
             coalesce(l.category, 'unmapped'), l.spot_tax_type, ${spotId('l.record_id')}, l.biz_order_id,
             CASE WHEN l.category IS NULL THEN 'spotTaxType=' || l.spot_tax_type
                  WHEN l.category = 'trade' THEN '${UNPAIRED_LEG}'
                  WHEN l.omitted THEN '${OMITTED_PREFIX}' || l.spot_tax_type
                  WHEN l.review THEN '${REVIEW_PREFIX}' || l.spot_tax_type END,
             ${spotId('l.record_id')}, NULL, NULL, NULL,
             l.record_id IN (SELECT record_id FROM third_fees), 'spot', NULL
      FROM ledger l
      WHERE NOT (coalesce(l.category, '') = 'trade' AND l.biz_order_id IN (SELECT biz_order_id FROM orders))
      UNION ALL
      -- The fee of a record bringing coins in is a cost row of its own: Koinly rejects a deposit with a fee.
      SELECT l.ts, ${byteOrder(`l.record_id || ':fee'`)}, -l.fee, l.coin, NULL, NULL, NULL, NULL, 'fee', l.booking_index,
             coalesce(l.category, 'unmapped'), l.spot_tax_type || ' fee', ${spotId('l.record_id')} || ':fee', l.biz_order_id,
             CASE WHEN l.omitted THEN '${OMITTED_PREFIX}' || l.spot_tax_type || ' fee' END,
             ${spotId('l.record_id')} || ':fee', NULL, NULL, NULL, false, 'spot', NULL
      FROM ledger l
      WHERE l.amount > 0 AND l.fee <> 0
        AND NOT (coalesce(l.category, '') = 'trade' AND l.biz_order_id IN (SELECT biz_order_id FROM orders))
      UNION ALL
      ${futuresEntries(account, start, end)}${
        options.walletLedgers
          ? `
      UNION ALL
      ${walletLedgerEntries()}`
          : ''
      }
    ),
    entries AS (SELECT * FROM all_entries ${coin})`;
}

/** A human description of an entry: its record types, category, record ids and order id (text-safe). */
export const ENTRY_DESCRIPTION = `spot_types || ' [' || category || '] ' || record_ids
  || CASE WHEN biz_order_id <> '' THEN ' ' || ${textSafeIdSql('order', 'biz_order_id')} ELSE '' END`;

/**
 * The entries' order, total: time, record id, then wallet and the entry's own id, since the two sides
 * of a spot <-> futures transfer carry one record id (on the exchange's records too). Tied on the
 * first two, the rows came out in whatever order the sort met them: two databases holding the same
 * records wrote different CoinTracking files (test/export/entry-order-ties.test.ts).
 */
export const ENTRY_ORDER = 'ORDER BY ts, sort_id, wallet, row_id';
