import type { Decimal } from 'decimal.js';

import { minus, share, ZERO } from '../lots/lot-arithmetic.ts';

/** A lot's cost and acquisition date supplied by `ledgerline cost-basis import` (cost-basis-import.ts). */
export interface SuppliedLot {
  readonly coin: string;
  readonly quantity: Decimal;
  readonly acquiredAtMs: number;
  /** In `currency`. */
  readonly cost: Decimal;
  readonly currency: string;
  /** Where the figures come from (the CSV's `source`), carried into the lot's record ids. */
  readonly source: string;
}

/** A part of a deposit that a supplied lot prices. */
export interface SuppliedPiece {
  readonly quantity: Decimal;
  readonly cost: Decimal;
  readonly acquiredAtMs: number;
  readonly source: string;
}

/**
 * The supplied lots of one walk, consumed by deposits (coins moved in) in arrival order: a deposit
 * of a coin takes from that coin's supplied lots acquired at or before it, oldest first, and what
 * none covers stays of unknown cost. Only lots in the walk's currency count (a cost in pounds does
 * not price a walk in euros: nothing is converted at a rate the user did not give).
 */
export class SuppliedCosts {
  private readonly byCoin = new Map<string, { lot: SuppliedLot; left: Decimal; costLeft: Decimal }[]>();

  constructor(lots: readonly SuppliedLot[], currency: string) {
    const sorted = [...lots].sort((a, b) => a.acquiredAtMs - b.acquiredAtMs);
    for (const lot of sorted) {
      if (lot.currency !== currency || lot.quantity.lte(ZERO)) continue;
      const list = this.byCoin.get(lot.coin) ?? [];
      list.push({ lot, left: lot.quantity, costLeft: lot.cost });
      this.byCoin.set(lot.coin, list);
    }
  }

  get empty(): boolean {
    return this.byCoin.size === 0;
  }

  /** Up to `quantity` of `coin` priced by the supplied lots acquired at or before `atMs`. */
  take(coin: string, quantity: Decimal, atMs: number): SuppliedPiece[] {
    const list = this.byCoin.get(coin);
    const pieces: SuppliedPiece[] = [];
    let wanted = quantity;
    while (list !== undefined && list.length > 0 && wanted.gt(ZERO)) {
      const entry = list[0]!;
      if (entry.lot.acquiredAtMs > atMs) break;
      const part = entry.left.lte(wanted) ? entry.left : wanted;
      const cost = part.eq(entry.left) ? entry.costLeft : share(entry.costLeft, part, entry.left);
      pieces.push({ quantity: part, cost, acquiredAtMs: entry.lot.acquiredAtMs, source: entry.lot.source });
      entry.left = minus(entry.left, part);
      entry.costLeft = minus(entry.costLeft, cost);
      wanted = minus(wanted, part);
      if (entry.left.isZero()) list.shift();
    }
    return pieces;
  }
}
