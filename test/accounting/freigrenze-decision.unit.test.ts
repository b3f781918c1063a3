import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';

import {
  decideFreigrenze,
  type DeYearTotals,
  FREIGRENZE_DEPENDS,
  FREIGRENZE_DEPENDS_ON_UNKNOWN_COST,
} from '../../src/export/reports/de-gains-summary.ts';
import { emptyReviewCounts } from '../../src/export/reports/review-counts.ts';

/** A 2024 year (EUR 1,000 Freigrenze, EStG section 23 (3) sentence 5) with a taxable gain and review counts. */
function year(taxable: string, review: Partial<Record<'beyond' | 'unknown', [string, string]>> = {}): DeYearTotals {
  const counts = emptyReviewCounts();
  if (review.beyond) {
    counts.beyondQuantity = new Decimal(review.beyond[0]);
    counts.beyondProceeds = new Decimal(review.beyond[1]);
  }
  if (review.unknown) {
    counts.unknownCostQuantity = new Decimal(review.unknown[0]);
    counts.unknownCostProceeds = new Decimal(review.unknown[1]);
  }
  const zero = new Decimal(0);
  return {
    taxableProceeds: zero,
    taxableCost: zero,
    taxableSellingCosts: zero,
    taxable: new Decimal(taxable),
    taxFree: zero,
    matches: 1,
    unpriced: review.unknown ? 1 : 0,
    review: counts,
    income: zero,
    unpricedIncome: 0,
  };
}

describe('the Freigrenze decided only where no unknown cost can change it', () => {
  it('a year under the limit with nothing to review is below it: nothing taxable', () => {
    const d = decideFreigrenze(2024, true, year('999.99'));
    expect([d.below, d.taxableAmount?.toString(), d.flag]).toEqual(['yes', '0', null]);
  });

  it('a year reaching the limit with parts beyond the holdings at cost 0 is undecided and says what it is without them', () => {
    const d = decideFreigrenze(2024, true, year('1100.4', { beyond: ['1', '600'] }));
    expect([d.below, d.taxableAmount, d.flag]).toEqual(['undecided', null, FREIGRENZE_DEPENDS]);
    expect(d.note).toContain('without them 500.4');
  });

  it('a year under the limit that parts of unknown cost could take over it (their gain at most their proceeds) is undecided', () => {
    // 900 known; 150 of proceeds whose cost is unknown: at cost 0 the year would be 1,050.
    const d = decideFreigrenze(2024, true, year('900', { unknown: ['2', '150'] }));
    expect([d.below, d.taxableAmount, d.flag]).toEqual(['undecided', null, FREIGRENZE_DEPENDS_ON_UNKNOWN_COST]);
    expect(d.note).toContain('unknown cost');
    expect(d.note).toContain('1050');
  });

  it('a year under the limit even with its unknown-cost parts at cost 0 is below it whatever their cost', () => {
    const d = decideFreigrenze(2024, true, year('800', { unknown: ['2', '150'] }));
    expect([d.below, d.taxableAmount?.toString(), d.flag]).toEqual(['yes', '0', null]);
  });

  it('a year reaching the limit without its unknown-cost parts may fall under it once their cost (a loss) is known', () => {
    const d = decideFreigrenze(2024, true, year('1200', { unknown: ['2', '150'] }));
    expect([d.below, d.taxableAmount, d.flag]).toEqual(['undecided', null, FREIGRENZE_DEPENDS_ON_UNKNOWN_COST]);
    expect(d.note).toContain('reaches the Freigrenze');
  });

  it('a year reaching the limit with neither is decided: all of it is taxable', () => {
    const d = decideFreigrenze(2024, true, year('1000'));
    expect([d.below, d.taxableAmount?.toString()]).toEqual(['no', '1000']);
  });
});
