import type { Decimal } from 'decimal.js';

import type { LotMatch } from '../lots/lot-engine.ts';

/** A disposal matched to a lot: a realized-gains row. */
export interface DisposalEvent {
  readonly kind: 'disposal';
  readonly match: LotMatch;
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

export type GainsEvent = DisposalEvent | IncomeEvent;
