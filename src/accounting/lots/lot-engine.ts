import type { Decimal } from 'decimal.js';

import { ValidationError } from '../../errors/index.ts';
import { minus, plus, share, ZERO } from './lot-arithmetic.ts';
import type { LotMethod } from './lot-method.ts';
import { OpenLots, type OpenLotsState } from './open-lots.ts';

/** One disposal matched to one lot (or to no lot: the part beyond the holdings). */
export interface LotMatch {
  readonly coin: string;
  readonly disposedAtMs: number;
  readonly quantity: Decimal;
  /** This part's share of the disposal's proceeds; null when the disposal could not be priced. */
  readonly proceeds: Decimal | null;
  /** The lot part's cost; null when the lot is unpriced or there is no lot (`beyondHoldings`). */
  readonly costBasis: Decimal | null;
  /** null for the part beyond the holdings. */
  readonly acquiredAtMs: number | null;
  readonly disposalRecordIds: string;
  readonly lotRecordIds: string;
  /** More was disposed of than was held: this part has no lot, so no cost (never invented). */
  readonly beyondHoldings: boolean;
  /** The lot came from a deposit whose cost nobody supplied: cost and acquisition date unknown. */
  readonly unknownCost?: boolean;
  /** A withdrawal of more than was held: nothing is realized, the part is only flagged. */
  readonly withdrawal?: boolean;
  /** The consumed lot's own review flag (`review:compensate-lot`, lot.ts), if it has one. */
  readonly lotReview?: string;
  /**
   * This part's share of the disposal's incidental costs (fees: TCGA92 s38(1)(c), EStG §23 (3)
   * Werbungskosten), already taken off `proceeds`: the gross proceeds are `proceeds + incidentalCost`.
   * Absent when the disposal had none.
   */
  readonly incidentalCost?: Decimal;
}

/** How an acquisition came about, when it is not a purchase at `cost` on the day it is walked. */
export interface AcquireOptions {
  /** Coins from outside with no supplied cost: cost null and no acquisition date (never invented). */
  readonly unknownCost?: true;
  /** The acquisition date supplied by `cost-basis import` (before the coins arrived). */
  readonly acquiredAtMs?: number;
  /** Coins acquired by a record to review: every row consuming them carries this flag (lot.ts). */
  readonly review?: string;
}

/** A LotEngine's whole state: every coin's lots (in the order the coins first moved) and the arrival counter. */
export interface LotEngineState {
  readonly coins: readonly { readonly coin: string; readonly lots: OpenLotsState }[];
  /** The `seq` the next lot gets. */
  readonly nextSeq: number;
}

/**
 * Lots of every coin under one method. Pure and synchronous: the caller walks the history in time
 * order and says what was acquired and disposed of, with values in the valuation currency, which
 * itself has no lots (acquiring or disposing of it does nothing).
 */
export class LotEngine {
  private readonly coins = new Map<string, OpenLots>();
  private seq = 0;

  constructor(
    readonly method: LotMethod,
    readonly currency: string,
  ) {}

  /** An engine that goes on exactly as the one whose `snapshot` this is would have. */
  static restore(method: LotMethod, currency: string, state: LotEngineState): LotEngine {
    const engine = new LotEngine(method, currency);
    for (const { coin, lots } of state.coins) engine.coins.set(coin, OpenLots.restore(method, lots));
    engine.seq = state.nextSeq;
    return engine;
  }

  snapshot(): LotEngineState {
    return {
      coins: [...this.coins].map(([coin, lots]) => ({ coin, lots: lots.snapshot() })),
      nextSeq: this.seq,
    };
  }

  /** Coins come in: a lot of `quantity` costing `cost` (null: unpriced). */
  acquire(
    coin: string,
    quantity: Decimal,
    cost: Decimal | null,
    atMs: number,
    recordIds: string,
    options: AcquireOptions = {},
  ): void {
    checkQuantity(quantity);
    if (coin === this.currency || quantity.isZero()) return;
    const lot = {
      quantity,
      cost,
      acquiredAtMs: options.acquiredAtMs ?? atMs,
      recordIds,
      seq: this.seq++,
      ...(options.review !== undefined ? { review: options.review } : {}),
    };
    this.lotsOf(coin).add(options.unknownCost ? { ...lot, cost: null, unknownCost: true } : lot);
  }

  /**
   * Coins go out for `proceeds` (null: unpriced), net of `incidental` costs (fees paying for the
   * disposal, valued: null or 0 for none): one match per lot part consumed, plus one for the part
   * beyond the holdings, if any. Proceeds and incidental costs are shared in proportion to
   * quantity, the last part taking the remainder, so the matches' add up to the disposal's exactly.
   */
  dispose(
    coin: string,
    quantity: Decimal,
    proceeds: Decimal | null,
    atMs: number,
    disposalRecordIds: string,
    incidental: Decimal | null = null,
  ): LotMatch[] {
    checkQuantity(quantity);
    if (coin === this.currency || quantity.isZero()) return [];
    const pieces = this.lotsOf(coin).take(quantity);
    const matches: LotMatch[] = [];
    let left = quantity;
    let unshared = proceeds;
    let costsUnshared = proceeds !== null && incidental?.gt(ZERO) === true ? incidental : null;
    const part = (qty: Decimal): { proceeds: Decimal | null; incidentalCost?: Decimal } => {
      const value = unshared === null ? null : share(unshared, qty, left);
      if (unshared !== null && value !== null) unshared = minus(unshared, value);
      const costs = costsUnshared === null ? null : share(costsUnshared, qty, left);
      if (costsUnshared !== null && costs !== null) costsUnshared = minus(costsUnshared, costs);
      left = minus(left, qty);
      return costs === null ? { proceeds: value } : { proceeds: value, incidentalCost: costs };
    };
    for (const piece of pieces) {
      matches.push({
        coin,
        disposedAtMs: atMs,
        quantity: piece.quantity,
        ...part(piece.quantity),
        costBasis: piece.cost,
        acquiredAtMs: piece.unknownCost ? null : piece.acquiredAtMs,
        disposalRecordIds,
        lotRecordIds: piece.recordIds,
        beyondHoldings: false,
        ...(piece.unknownCost ? { unknownCost: true } : {}),
        ...(piece.review !== undefined ? { lotReview: piece.review } : {}),
      });
    }
    if (left.gt(ZERO)) {
      matches.push({
        coin,
        disposedAtMs: atMs,
        quantity: left,
        ...part(left),
        costBasis: null,
        acquiredAtMs: null,
        disposalRecordIds,
        lotRecordIds: '',
        beyondHoldings: true,
      });
    }
    return matches;
  }

  /**
   * Coins leave without a disposal (a withdrawal, most likely to the owner's own wallet): their lots
   * go with them in the method's order, and nothing is realized. Returns the quantity removed.
   */
  remove(coin: string, quantity: Decimal): Decimal {
    checkQuantity(quantity);
    if (coin === this.currency || quantity.isZero()) return ZERO;
    return this.lotsOf(coin)
      .take(quantity)
      .reduce((sum, piece) => plus(sum, piece.quantity), ZERO);
  }

  /**
   * A withdrawal: `remove`, and the part beyond the holdings (if any) as a match flagged like a
   * disposal beyond the holdings, with nothing realized (proceeds 0, no cost).
   */
  withdraw(coin: string, quantity: Decimal, atMs: number, recordIds: string): LotMatch[] {
    const removed = this.remove(coin, quantity);
    if (coin === this.currency || removed.gte(quantity)) return [];
    return [
      {
        coin,
        disposedAtMs: atMs,
        quantity: minus(quantity, removed),
        proceeds: ZERO,
        costBasis: null,
        acquiredAtMs: null,
        disposalRecordIds: recordIds,
        lotRecordIds: '',
        beyondHoldings: true,
        withdrawal: true,
      },
    ];
  }

  /** The quantity of `coin` held in open lots. */
  held(coin: string): Decimal {
    return this.coins.get(coin)?.quantity ?? ZERO;
  }

  /** Open lots over all coins (for tests and the benchmark's memory figures). */
  get openLots(): number {
    let count = 0;
    for (const lots of this.coins.values()) count += lots.count;
    return count;
  }

  private lotsOf(coin: string): OpenLots {
    let lots = this.coins.get(coin);
    if (lots === undefined) {
      lots = new OpenLots(this.method);
      this.coins.set(coin, lots);
    }
    return lots;
  }
}

function checkQuantity(quantity: Decimal): void {
  if (!quantity.isFinite() || quantity.isNegative()) {
    throw new ValidationError('quantity', 'must be a finite decimal, 0 or more', quantity.toString());
  }
}
