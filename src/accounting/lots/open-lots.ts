import type { Decimal } from 'decimal.js';

import type { Lot, LotPiece } from './lot.ts';
import { minus, plus, share, unitCostAbove, ZERO } from './lot-arithmetic.ts';
import type { LotMethod } from './lot-method.ts';

/**
 * One coin's open lots exactly as held (a gains checkpoint, gains-checkpoint-store.ts): the lots in
 * the order the method keeps them, which is not always their order of use. A HIFO heap is kept
 * as its array: a lot partly taken keeps its place at the top although the rounding of its
 * remaining cost may move its unit cost a hair below a child's, so the next choice depends on the
 * array, not on the ordering alone.
 */
export interface OpenLotsState {
  readonly lots: readonly Lot[];
  readonly held: Decimal;
  /** Average cost's pool: the priced quantity and its remaining cost (zero under other methods). */
  readonly pooledQuantity: Decimal;
  readonly pooledCost: Decimal;
}

/**
 * The open lots of one coin and the order a method consumes them in. Only open lots are held:
 * a lot consumed to zero is dropped, so memory follows the holdings, not the history.
 *
 * - fifo / average: a queue, oldest first. Average cost pools only the cost: the queue still
 *   supplies each piece's acquisition date and record ids (so holding periods stay meaningful),
 *   while every priced unit leaves at the pool's average cost, `pooled cost x part / pooled
 *   quantity`. Unpriced lots stay out of the pool (their units leave unpriced, in queue order).
 * - lifo: a stack, newest first.
 * - hifo: a binary max-heap by unit cost (older first on a tie); unpriced lots rank below every
 *   priced lot (their cost is unknown, so HIFO cannot rank them) and among themselves oldest first.
 */
export class OpenLots {
  private readonly lots: (Lot | undefined)[] = [];
  private head = 0;
  private pooledQuantity = ZERO;
  private pooledCost = ZERO;
  private held = ZERO;

  constructor(private readonly method: LotMethod) {}

  /** Lots that go on exactly as those whose `snapshot` this is. */
  static restore(method: LotMethod, state: OpenLotsState): OpenLots {
    const lots = new OpenLots(method);
    for (const lot of state.lots) lots.lots.push({ ...lot });
    lots.held = state.held;
    lots.pooledQuantity = state.pooledQuantity;
    lots.pooledCost = state.pooledCost;
    return lots;
  }

  /** The lots as they are held now, copied: what `restore` takes back. */
  snapshot(): OpenLotsState {
    // Lots are mutated in place (quantity, cost) as they are taken from: copies, not references.
    const lots = this.lots.slice(this.head).map((lot) => ({ ...lot! }));
    return { lots, held: this.held, pooledQuantity: this.pooledQuantity, pooledCost: this.pooledCost };
  }

  get quantity(): Decimal {
    return this.held;
  }

  get count(): number {
    return this.lots.length - this.head;
  }

  add(lot: Lot): void {
    this.held = plus(this.held, lot.quantity);
    if (this.method === 'hifo') {
      this.lots.push(lot);
      this.siftUp(this.lots.length - 1);
      return;
    }
    this.lots.push(lot);
    if (this.method === 'average' && lot.cost !== null) {
      this.pooledQuantity = plus(this.pooledQuantity, lot.quantity);
      this.pooledCost = plus(this.pooledCost, lot.cost);
    }
  }

  /**
   * Takes up to `quantity` from the lots in the method's order; returns the pieces (their
   * quantities sum to min(quantity, held)). Exact: a lot split in two keeps cost - share.
   */
  take(quantity: Decimal): LotPiece[] {
    const pieces: LotPiece[] = [];
    let wanted = quantity;
    while (wanted.gt(0) && this.count > 0) {
      const lot = this.next();
      const part = lot.quantity.lte(wanted) ? lot.quantity : wanted;
      const cost = this.costOf(lot, part);
      const piece = { quantity: part, cost, acquiredAtMs: lot.acquiredAtMs, recordIds: lot.recordIds };
      pieces.push({
        ...piece,
        ...(lot.unknownCost ? { unknownCost: true as const } : {}),
        ...(lot.review !== undefined ? { review: lot.review } : {}),
      });
      wanted = minus(wanted, part);
      this.held = minus(this.held, part);
      if (part.eq(lot.quantity)) this.drop();
      else {
        lot.quantity = minus(lot.quantity, part);
        if (lot.cost !== null) lot.cost = minus(lot.cost, share(lot.cost, part, plus(lot.quantity, part)));
      }
    }
    return pieces;
  }

  private costOf(lot: Lot, part: Decimal): Decimal | null {
    if (lot.cost === null) return null;
    if (this.method !== 'average') return share(lot.cost, part, lot.quantity);
    const cost = share(this.pooledCost, part, this.pooledQuantity);
    this.pooledCost = minus(this.pooledCost, cost);
    this.pooledQuantity = minus(this.pooledQuantity, part);
    return cost;
  }

  private next(): Lot {
    if (this.method === 'lifo') return this.lots[this.lots.length - 1]!;
    if (this.method === 'hifo') return this.lots[0]!;
    return this.lots[this.head]!;
  }

  private drop(): void {
    if (this.method === 'lifo') {
      this.lots.pop();
    } else if (this.method === 'hifo') {
      const last = this.lots.pop()!;
      if (this.lots.length > 0) {
        this.lots[0] = last;
        this.siftDown(0);
      }
    } else {
      this.lots[this.head++] = undefined;
      // Compact now and then: a queue that only grows at the tail would otherwise keep its dead head.
      if (this.head > 1024 && this.head * 2 > this.lots.length) {
        this.lots.splice(0, this.head);
        this.head = 0;
      }
    }
  }

  /** Whether lot a comes out of the heap before lot b. */
  private before(a: Lot, b: Lot): boolean {
    if (a.cost === null || b.cost === null) {
      if ((a.cost === null) !== (b.cost === null)) return b.cost === null;
      return a.seq < b.seq;
    }
    if (unitCostAbove(a.cost, a.quantity, b.cost, b.quantity)) return true;
    if (unitCostAbove(b.cost, b.quantity, a.cost, a.quantity)) return false;
    return a.seq < b.seq;
  }

  private siftUp(index: number): void {
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(this.lots[i]!, this.lots[parent]!)) return;
      [this.lots[i], this.lots[parent]] = [this.lots[parent]!, this.lots[i]!];
      i = parent;
    }
  }

  private siftDown(index: number): void {
    const n = this.lots.length;
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let top = i;
      if (left < n && this.before(this.lots[left]!, this.lots[top]!)) top = left;
      if (right < n && this.before(this.lots[right]!, this.lots[top]!)) top = right;
      if (top === i) return;
      [this.lots[i], this.lots[top]] = [this.lots[top]!, this.lots[i]!];
      i = top;
    }
  }
}
