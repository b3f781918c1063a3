import type { Decimal } from 'decimal.js';

import { plain, plus, ZERO } from '../../accounting/lots/lot-arithmetic.ts';
import { decimal, type ReportColumn } from '../report-definition.ts';

/**
 * What a summary's totals leave to an accountant, counted beside them (docs/reports.md, "Unknown
 * cost"): the quantity and proceeds of parts whose cost is unknown (coins moved in, no cost
 * supplied) and of parts beyond the holdings (cost 0 by convention), and the quantity withdrawn
 * beyond the holdings (nothing realized). Quantities only per coin: coins do not add up.
 */
export interface ReviewCounts {
  unknownCostQuantity: Decimal;
  unknownCostProceeds: Decimal;
  beyondQuantity: Decimal;
  beyondProceeds: Decimal;
  withdrawnBeyond: Decimal;
}

export const emptyReviewCounts = (): ReviewCounts => ({
  unknownCostQuantity: ZERO,
  unknownCostProceeds: ZERO,
  beyondQuantity: ZERO,
  beyondProceeds: ZERO,
  withdrawnBeyond: ZERO,
});

export const REVIEW_COUNT_COLUMNS: readonly ReportColumn[] = [
  decimal('unknown_cost_quantity'),
  decimal('unknown_cost_proceeds'),
  decimal('beyond_holdings_quantity'),
  decimal('beyond_holdings_proceeds'),
  decimal('withdrawn_beyond_holdings'),
];

/** One matched part, in the terms every method's match can give. */
export interface ReviewedPart {
  readonly quantity: Decimal;
  readonly proceeds: Decimal | null;
  readonly unknownCost: boolean;
  readonly beyondHoldings: boolean;
  readonly withdrawal: boolean;
}

export function countPart(counts: ReviewCounts, part: ReviewedPart): void {
  const proceeds = part.proceeds ?? ZERO;
  if (part.withdrawal) counts.withdrawnBeyond = plus(counts.withdrawnBeyond, part.quantity);
  else if (part.beyondHoldings) {
    counts.beyondQuantity = plus(counts.beyondQuantity, part.quantity);
    counts.beyondProceeds = plus(counts.beyondProceeds, proceeds);
  } else if (part.unknownCost) {
    counts.unknownCostQuantity = plus(counts.unknownCostQuantity, part.quantity);
    counts.unknownCostProceeds = plus(counts.unknownCostProceeds, proceeds);
  }
}

export function addReviewCounts(total: ReviewCounts, part: ReviewCounts): void {
  total.unknownCostQuantity = plus(total.unknownCostQuantity, part.unknownCostQuantity);
  total.unknownCostProceeds = plus(total.unknownCostProceeds, part.unknownCostProceeds);
  total.beyondQuantity = plus(total.beyondQuantity, part.beyondQuantity);
  total.beyondProceeds = plus(total.beyondProceeds, part.beyondProceeds);
  total.withdrawnBeyond = plus(total.withdrawnBeyond, part.withdrawnBeyond);
}

/** The cells of REVIEW_COUNT_COLUMNS: a total row (several coins) has no quantities. */
export function reviewCells(counts: ReviewCounts, perCoin: boolean): (string | null)[] {
  const quantity = (value: Decimal) => (perCoin ? plain(value) : null);
  return [
    quantity(counts.unknownCostQuantity),
    plain(counts.unknownCostProceeds),
    quantity(counts.beyondQuantity),
    plain(counts.beyondProceeds),
    quantity(counts.withdrawnBeyond),
  ];
}
