import { Decimal } from 'decimal.js';
import type pg from 'pg';

import type { LedgerEntry } from '../../booking/ledger-entry.ts';
import { byteOrder } from '../../booking/sql-fragments.ts';
import { minus, plus, ZERO } from '../lots/lot-arithmetic.ts';
import { typesTreatedAs } from '../treatments/treatment-table.ts';

/** Spot <-> futures, margin and P2P transfers: their other side is a ledger of its own. */
const WALLET_TRANSFERS = /^Transfer (in|out)$/;

/** The spot tax types whose records move coins away and back within the owner's reach (locks, earn, own accounts). */
export const OWN_MOVE_TYPES: readonly string[] = typesTreatedAs('spot', 'own-move').filter(
  (type) => !WALLET_TRANSFERS.test(type),
);

/**
 * What spot's own moves (locks, earn, strategy and other own accounts: treatment `own-move`) hold
 * away from the spot balance, per coin: their lots stay while they are away. What comes back beyond
 * what went away never left through a record the walk read: coins of unknown cost, as a deposit's
 * (never invented, and no pool short of what the wallets hold: docs/reports.md, "Treatments").
 * Spot <-> futures, margin and P2P transfers are left out: their other side is a ledger of its own,
 * walked too (src/booking/wallet-entries.ts: the lots stay).
 *
 * Part of a walk's state besides its lots: a walk resumed from a lot checkpoint starts from
 * `ownMovesAwayBefore` the checkpoint, read from the records themselves.
 */
export class OwnMovesAway {
  private readonly away = new Map<string, Decimal>();

  static applies(entry: LedgerEntry): boolean {
    return entry.wallet !== 'futures' && OWN_MOVE_TYPES.includes(entry.spotTypes);
  }

  out(coin: string, quantity: Decimal): void {
    this.away.set(coin, plus(this.away.get(coin) ?? ZERO, quantity));
  }

  /** What is away of the coin. */
  held(coin: string): Decimal {
    return this.away.get(coin) ?? ZERO;
  }

  /**
   * Coins away decided lost (away-losses.ts): what of `quantity` is still away leaves it; returns
   * that part (the walk disposes of it for nothing, unknown-cost-arrivals.ts replays it).
   */
  lose(coin: string, quantity: Decimal): Decimal {
    const held = this.held(coin);
    const lost = held.lt(quantity) ? held : quantity;
    if (!lost.isZero()) this.back(coin, lost);
    return lost;
  }

  /** Takes what comes back from what is away; returns the part beyond it. */
  back(coin: string, quantity: Decimal): Decimal {
    const held = this.away.get(coin) ?? ZERO;
    const taken = held.lt(quantity) ? held : quantity;
    this.away.set(coin, minus(held, taken));
    return minus(quantity, taken);
  }
}

/**
 * The state a walk from the first record has at `beforeMs`: every own move's record before it, in
 * the walk's order (time, then record id byte order: ledger-entries.ts), an amount out moving
 * coins away and an amount in taking them back, as the walk's entries of those records do.
 */
export async function ownMovesAwayBefore(
  db: pg.ClientBase,
  accountId: string,
  beforeMs: number,
): Promise<OwnMovesAway> {
  const away = new OwnMovesAway();
  const { rows } = await db.query<{ coin: string; amount: string }>(
    `SELECT coin, amount::text AS amount FROM spot_record
     WHERE account_id = $1 AND ts < $2 AND spot_tax_type = ANY($3::text[]) AND amount <> 0
     ORDER BY ts, ${byteOrder('record_id')}`,
    [accountId, new Date(beforeMs).toISOString(), OWN_MOVE_TYPES],
  );
  for (const r of rows) {
    const amount = new Decimal(r.amount);
    if (amount.isNegative()) away.out(r.coin, amount.neg());
    else away.back(r.coin, amount);
  }
  return away;
}
