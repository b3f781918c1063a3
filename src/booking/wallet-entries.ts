import { MARGIN_TAX_TYPES } from '../streams/margin-ledger/tax-types.ts';
import { P2P_TAX_TYPES } from '../streams/p2p-ledger/tax-types.ts';
import { REVIEW_PREFIX, UNPAIRED_LEG } from './entry-flags.ts';
import { byteOrder } from './sql-fragments.ts';
import type { SqlParams } from './sql-params.ts';
import { ID_KINDS } from './text-safe-ids.ts';

/** The margin types whose records are trade legs: a given side and a received side at one instant. */
const MARGIN_TRADE_TYPES = ['deal_in', 'deal_out', 'exchange_in', 'exchange_out'];
/** Records the exchange took or gave for reasons it does not state (docs/exchange-api.md §5.8): for review. */
const MARGIN_REVIEWED = ['confiscated', 'compensate'];

const marginId = (column: string) => `'${ID_KINDS.margin}' || ${column}`;
const p2pId = (column: string) => `'${ID_KINDS.p2p}' || ${column}`;

/**
 * The margin and P2P wallets' CTEs, placed before `all_entries` (ledger-entries.ts):
 *   margin_ledger   the period's margin finance records (both margin types), `known` when the type is listed
 *   margin_legs     its trade legs (`deal_in`/`deal_out`, `exchange_in`/`exchange_out`), the k-th of each
 *                   side within (margin type, symbol, instant, family) in record id order
 *   margin_trades   each given leg with the received leg of the same k: one trade. The margin record has
 *                   no order id (§5.8): a margin account's two sides of one fill share their instant
 *                   (the simulator's and the documentation's samples), which is what pairs them
 *   p2p_ledger      the period's P2P records, each with its signed change (`total` is unsigned, §5.9)
 * Materialized: each is read once (see futures-entries.ts).
 */
export function walletLedgerCtes(p: SqlParams, account: string, start: string, end: string): string {
  const tradeTypes = p.add(MARGIN_TRADE_TYPES, 'text[]');
  return `margin_ledger AS MATERIALIZED (
      SELECT m.record_id, m.ts, m.coin, m.margin_type, m.symbol, m.margin_tax_type AS type, m.amount, m.fee,
             m.margin_tax_type = ANY(${p.add([...MARGIN_TAX_TYPES], 'text[]')}) AS known
      FROM margin_ledger_record m
      WHERE m.account_id = ${account} AND m.ts >= ${start} AND m.ts < ${end}
    ),
    margin_legs AS MATERIALIZED (
      SELECT l.*, row_number() OVER (
               PARTITION BY l.margin_type, l.symbol, l.ts, left(l.type, 4), l.amount > 0
               ORDER BY ${byteOrder('l.record_id')}) AS k
      FROM margin_ledger l
      WHERE l.type = ANY(${tradeTypes}) AND l.amount <> 0
    ),
    margin_trades AS MATERIALIZED (
      SELECT o.ts, o.margin_type, o.symbol, o.record_id AS out_id, o.type AS out_type, o.coin AS out_coin,
             -o.amount AS given, CASE WHEN o.fee <> 0 THEN -o.fee END AS given_fee,
             i.record_id AS in_id, i.type AS in_type, i.coin AS in_coin,
             i.amount AS received, CASE WHEN i.fee <> 0 THEN -i.fee END AS received_fee
      FROM margin_legs o
      JOIN margin_legs i ON i.margin_type = o.margin_type AND i.symbol = o.symbol AND i.ts = o.ts
        AND left(i.type, 4) = left(o.type, 4) AND i.k = o.k AND i.amount > 0 AND i.coin <> o.coin
      WHERE o.amount < 0
    ),
    p2p_ledger AS MATERIALIZED (
      SELECT r.record_id, r.ts, r.coin, r.p2p_tax_type AS type,
             CASE r.p2p_tax_type WHEN 'buy' THEN r.total WHEN 'transfer_in' THEN r.total
                  WHEN 'sell' THEN -r.total WHEN 'transfer_out' THEN -r.total ELSE 0 END AS amount,
             r.p2p_tax_type = ANY(${p.add([...P2P_TAX_TYPES], 'text[]')}) AS known
      FROM p2p_ledger_record r
      WHERE r.account_id = ${account} AND r.ts >= ${start} AND r.ts < ${end}
    )`;
}

/**
 * The margin and P2P wallets as ledger entries, in the columns of `all_entries` (ledger-entries.ts),
 * wallet `margin` or `p2p`; `spot_types` starts with the record's own type (entry-treatment.ts reads
 * it), followed by the margin type and symbol. Record ids `margin:<id>` / `p2p:<id>`, as the
 * margin-ledger and p2p-ledger reports write them; sort ids the same, so that no entry ties with a
 * spot record of the same digits.
 *
 * - A margin trade (margin_trades) is one entry like a spot fill: the given side sent (plus its fee
 *   when both sides carry one), the received side received, the received side's fee in the fee
 *   column, else the given side's. A trade leg without its other side is an entry of its own,
 *   flagged `unpaired-leg` (walked at market value, as spot's are).
 * - Every other margin record is an entry of its own, as a spot record is (its fee beside it; the
 *   fee of a record bringing coins in a `:fee` entry of its own); `confiscated` and `compensate`
 *   are flagged `review:<type>`, a type outside the documented list `marginTaxType=<type>`.
 * - A P2P record moves its `total` in (buy, transfer_in) or out (sell, transfer_out); a buy is
 *   flagged `review:unknown-cost` and a sell `review:unknown-proceeds` (no fiat amount in the
 *   record), a type outside the list `p2pTaxType=<type>` (it moves nothing).
 */
export function walletLedgerEntries(): string {
  const scope = `trim(l.margin_type || ' ' || l.symbol)`;
  return `SELECT t.ts, ${byteOrder(marginId('t.out_id'))},
             CASE WHEN t.given_fee IS NOT NULL AND t.received_fee IS NOT NULL THEN t.given + t.given_fee ELSE t.given END,
             t.out_coin, t.received, t.in_coin,
             coalesce(t.received_fee, t.given_fee),
             CASE WHEN t.received_fee IS NOT NULL THEN t.in_coin WHEN t.given_fee IS NOT NULL THEN t.out_coin END,
             'trade', NULL::integer, 'trade',
             trim(t.out_type || ' / ' || t.in_type || ' ' || t.margin_type || ' ' || t.symbol),
             ${marginId('t.out_id')} || '+' || ${marginId('t.in_id')}, '', NULL::text,
             ${marginId('t.out_id')}, NULL::numeric, NULL::text, NULL::text, false, 'margin', NULL::text
      FROM margin_trades t
      UNION ALL
      SELECT l.ts, ${byteOrder(marginId('l.record_id'))},
             CASE WHEN l.amount < 0 THEN -l.amount WHEN l.amount = 0 AND l.fee <> 0 THEN -l.fee END,
             CASE WHEN l.amount < 0 OR (l.amount = 0 AND l.fee <> 0) THEN l.coin END,
             CASE WHEN l.amount > 0 OR (l.amount = 0 AND l.fee = 0) THEN l.amount END,
             CASE WHEN l.amount > 0 OR (l.amount = 0 AND l.fee = 0) THEN l.coin END,
             CASE WHEN l.amount < 0 AND l.fee <> 0 THEN -l.fee END,
             CASE WHEN l.amount < 0 AND l.fee <> 0 THEN l.coin END,
             CASE WHEN l.amount > 0 THEN 'in' WHEN l.amount < 0 THEN 'out' WHEN l.fee <> 0 THEN 'fee' ELSE 'none' END,
             NULL::integer, CASE WHEN l.type = ANY(${sqlList(MARGIN_TRADE_TYPES)}) THEN 'trade' ELSE 'margin' END,
             trim(l.type || ' ' || ${scope}), ${marginId('l.record_id')}, '',
             CASE WHEN NOT l.known THEN 'marginTaxType=' || l.type
                  WHEN l.type = ANY(${sqlList(MARGIN_TRADE_TYPES)}) THEN '${UNPAIRED_LEG}'
                  WHEN l.type = ANY(${sqlList(MARGIN_REVIEWED)}) THEN '${REVIEW_PREFIX}' || l.type END,
             ${marginId('l.record_id')}, NULL::numeric, NULL::text, NULL::text, false, 'margin', NULL::text
      FROM margin_ledger l
      WHERE l.record_id NOT IN (SELECT out_id FROM margin_trades UNION ALL SELECT in_id FROM margin_trades)
      UNION ALL
      SELECT l.ts, ${byteOrder(`${marginId('l.record_id')} || ':fee'`)}, -l.fee, l.coin, NULL, NULL, NULL, NULL, 'fee',
             NULL::integer, 'margin', trim(l.type || ' ' || ${scope}) || ' fee', ${marginId('l.record_id')} || ':fee', '',
             NULL::text, ${marginId('l.record_id')} || ':fee', NULL::numeric, NULL::text, NULL::text, false, 'margin', NULL::text
      FROM margin_ledger l
      WHERE l.amount > 0 AND l.fee <> 0
        AND l.record_id NOT IN (SELECT out_id FROM margin_trades UNION ALL SELECT in_id FROM margin_trades)
      UNION ALL
      SELECT r.ts, ${byteOrder(p2pId('r.record_id'))},
             CASE WHEN r.amount < 0 THEN -r.amount END, CASE WHEN r.amount < 0 THEN r.coin END,
             CASE WHEN r.amount >= 0 THEN r.amount END, CASE WHEN r.amount >= 0 THEN r.coin END,
             NULL::numeric, NULL::text,
             CASE WHEN r.amount > 0 THEN 'in' WHEN r.amount < 0 THEN 'out' ELSE 'none' END,
             NULL::integer, 'p2p', r.type, ${p2pId('r.record_id')}, '',
             CASE WHEN NOT r.known THEN 'p2pTaxType=' || r.type
                  WHEN r.type = 'buy' THEN '${REVIEW_PREFIX}unknown-cost'
                  WHEN r.type = 'sell' THEN '${REVIEW_PREFIX}unknown-proceeds' END,
             ${p2pId('r.record_id')}, NULL::numeric, NULL::text, NULL::text, false, 'p2p', NULL::text
      FROM p2p_ledger r`;
}

/** A constant list of plain type names as a SQL array (names of the documented types: no quoting needed). */
function sqlList(values: readonly string[]): string {
  return `ARRAY[${values.map((v) => `'${v}'`).join(', ')}]::text[]`;
}
