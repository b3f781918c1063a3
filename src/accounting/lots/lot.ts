import type { Decimal } from 'decimal.js';

/**
 * Coins of one acquisition still held: `quantity` left of it and the cost of exactly that quantity
 * in the valuation currency (null: the acquisition could not be priced, so neither can any part).
 */
export interface Lot {
  quantity: Decimal;
  cost: Decimal | null;
  readonly acquiredAtMs: number;
  /** The record(s) that brought it in, e.g. `171..000+171..001` for a trade's two legs. */
  readonly recordIds: string;
  /** Arrival order: the tie-break that keeps every method's choice independent of data layout. */
  readonly seq: number;
  /**
   * Coins moved in from outside (a deposit) whose cost and acquisition date nobody supplied: cost
   * null and the date is only the arrival's, never reported as an acquisition date.
   */
  readonly unknownCost?: true;
  /**
   * The flag every row consuming this lot carries (`review:compensate-lot`): coins acquired by a
   * record a person must look at (a margin `compensate`, reviewed-records.ts).
   */
  readonly review?: string;
}

/** Part of a lot taken by a disposal. */
export interface LotPiece {
  readonly quantity: Decimal;
  /** The cost of this part (null when the lot is unpriced). */
  readonly cost: Decimal | null;
  readonly acquiredAtMs: number;
  readonly recordIds: string;
  readonly unknownCost?: true;
  readonly review?: string;
}
