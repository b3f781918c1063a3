import type { Decimal } from 'decimal.js';

import type { LotMatch } from '../lots/lot-engine.ts';

/** A disposal matched to a lot (or, UK rules, to a same-day, 30-day or pool part): a realized-gains row. */
export interface DisposalEvent<M = LotMatch> {
  readonly kind: 'disposal';
  readonly match: M;
  /**
   * `review:<type>`: a record disposed of that a person must look at, or `review:<type>-lot`: a lot
   * consumed came from one (reviewed-records.ts).
   */
  readonly review?: string;
}

/** Coins received as income (rewards, interest, airdrops), valued at receipt: an income row. */
export interface IncomeEvent {
  readonly kind: 'income';
  readonly atMs: number;
  readonly coin: string;
  readonly quantity: Decimal;
  /** null: unpriced at receipt (the lot it creates is unpriced too). */
  readonly value: Decimal | null;
  readonly priceSource: string | null;
  readonly spotTaxType: string;
  readonly recordId: string;
}

export type GainsEvent<M = LotMatch> = DisposalEvent<M> | IncomeEvent;
