import { Decimal } from 'decimal.js';
import type pg from 'pg';

import { futuresCtes } from '../../booking/futures-entries.ts';
import { byteOrder } from '../../booking/sql-fragments.ts';
import { SqlParams } from '../../booking/sql-params.ts';
import { ID_KINDS } from '../../booking/text-safe-ids.ts';
import { ZERO } from '../lots/lot-arithmetic.ts';
import { typesTreatedAs } from '../treatments/treatment-table.ts';
import { AwayLosses, loadAwayLosses } from './away-losses.ts';
import { OWN_MOVE_TYPES, OwnMovesAway } from './own-moves-away.ts';

/** Why the walk takes an arrival's coins as of unknown cost (docs/reports.md, "Treatments"). */
export const ARRIVAL_KINDS = {
  deposit: 'moved in from outside',
  'p2p-buy': 'bought on P2P for fiat the record does not state',
  'futures-in': 'a futures transfer in with no spot side',
  'own-move-back': 'came back beyond what went away',
} as const;
export type ArrivalKind = keyof typeof ARRIVAL_KINDS;

/** Coins the gains walk takes in of unknown cost: a deposit's, unless a supplied lot prices them. */
export interface UnknownCostArrival {
  /** As the gains reports name the record: `spot:<id>`, `p2p:<id>` or `futures:<id>`. */
  readonly recordId: string;
  readonly coin: string;
  readonly atMs: number;
  /** Exact: what of the record the walk acquires of unknown cost (for an own move, the part beyond). */
  readonly quantity: string;
  readonly kind: ArrivalKind;
  /** The record's tax type as the exchange gives it (`Deposit`, `TRANSFER_IN`, `Release`...). */
  readonly taxType: string;
}

/** Spot deposits: coins moved in from outside, cost unknown until supplied. */
export const DEPOSIT_TYPES = typesTreatedAs('spot', 'deposit');
/** P2P buys: bought for fiat the record does not state (docs/reports.md, "Margin and P2P"). */
export const P2P_DEPOSIT_TYPES = typesTreatedAs('p2p', 'deposit');
/** P2P sells: sold for fiat the record does not state (docs/reports.md, "Unknown proceeds"). */
export const P2P_SELL_TYPES = typesTreatedAs('p2p', 'unknown-proceeds');

interface Row {
  wallet: 'spot' | 'p2p' | 'futures';
  recordId: string;
  ms: string;
  coin: string;
  amount: string;
  taxType: string;
}

/**
 * Every arrival the gains walk (walk-history.ts) takes in as of unknown cost, in the walk's order
 * (ledger-entries.ts ENTRY_ORDER: time, record id in byte order, wallet): the one list the
 * accountants' page offers a cost form for, the tax years page counts, the pack lists and the
 * demo's accountant supplies, so none of them can disagree with the walk or with each other:
 * - a spot deposit (treatment `deposit`) and a P2P buy: all of it;
 * - a futures TRANSFER_IN whose spot side no record shows (entry-treatment.ts UNSEEN_SIDE), paired
 *   by the walk's own `transfer_pairs` (futures-entries.ts): its amount (a fee is a row of its own);
 * - a spot own move (locks, Earn, strategy, own accounts) coming back beyond what went away, with
 *   the walk's OwnMovesAway and the accountant's `lost` decisions (AwayLosses) applied as it does.
 * Reads only the records these kinds name: no ledger pairing, no prices, no walk.
 */
export async function unknownCostArrivals(
  db: pg.Pool | pg.ClientBase,
  accountId: string,
): Promise<UnknownCostArrival[]> {
  const p = new SqlParams();
  const account = p.add(accountId, 'uuid');
  const ever = futuresCtes(p, account, p.add(new Date(0).toISOString(), 'timestamptz'), "'infinity'::timestamptz");
  const deposits = p.add(DEPOSIT_TYPES, 'text[]');
  const own = p.add(OWN_MOVE_TYPES, 'text[]');
  const buys = p.add(P2P_DEPOSIT_TYPES, 'text[]');
  const { rows } = await db.query<Row>(
    `WITH ${ever},
     arrivals AS (
       SELECT 'spot' AS wallet, record_id, ts, coin, amount, spot_tax_type AS tax_type, record_id AS sort_id
         FROM spot_record
        WHERE account_id = ${account}
          AND ((spot_tax_type = ANY(${deposits}) AND amount > 0) OR (spot_tax_type = ANY(${own}) AND amount <> 0))
       UNION ALL
       SELECT 'p2p', record_id, ts, coin, total, p2p_tax_type, '${ID_KINDS.p2p}' || record_id
         FROM p2p_ledger_record WHERE account_id = ${account} AND p2p_tax_type = ANY(${buys}) AND total > 0
       UNION ALL
       SELECT 'futures', f.record_id, f.ts, f.coin, f.amount, f.future_tax_type, f.record_id
         FROM futures_ledger f LEFT JOIN transfer_pairs t USING (record_id)
        WHERE f.future_tax_type = 'TRANSFER_IN' AND f.amount > 0 AND t.spot_id IS NULL
     )
     SELECT wallet, record_id AS "recordId", (extract(epoch FROM ts) * 1000)::bigint::text AS ms, coin,
            amount::text AS amount, tax_type AS "taxType"
       FROM arrivals ORDER BY ts, ${byteOrder('sort_id')}, wallet`,
    p.values,
  );
  const losses = new AwayLosses(await loadAwayLosses(db, accountId));
  const away = new OwnMovesAway();
  const arrivals: UnknownCostArrival[] = [];
  for (const row of rows) {
    const atMs = Number(row.ms);
    const arrival = (kind: ArrivalKind, quantity: Decimal) =>
      arrivals.push({
        recordId: `${ID_KINDS[row.wallet]}${row.recordId}`,
        coin: row.coin,
        atMs,
        quantity: quantity.toFixed(),
        kind,
        taxType: row.taxType,
      });
    const amount = new Decimal(row.amount);
    if (row.wallet === 'p2p') arrival('p2p-buy', amount);
    else if (row.wallet === 'futures') arrival('futures-in', amount);
    else if (DEPOSIT_TYPES.includes(row.taxType)) arrival('deposit', amount);
    else {
      // The walk applies the losses decided before each entry (walk-history.ts `lose`).
      for (const loss of losses.dueBefore(atMs)) away.lose(loss.coin, loss.quantity);
      if (amount.isNegative()) away.out(row.coin, amount.neg());
      else {
        const beyond = away.back(row.coin, amount);
        if (beyond.gt(ZERO)) arrival('own-move-back', beyond);
      }
    }
  }
  return arrivals;
}
