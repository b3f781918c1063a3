import { Decimal } from 'decimal.js';

/** One tax year's figures: proceeds gross, costs with the incidental costs of disposal, the net gain. */
export interface YearTotals {
  proceeds: Decimal;
  costs: Decimal;
  gain: Decimal;
  /** Parts with no proceeds or no cost: in no sum. */
  unpriced: number;
  /** Their proceeds where known (a part of unknown cost). */
  unpricedProceeds: Decimal;
}

export class Totals {
  readonly years = new Map<string, YearTotals>();
  /** Every part, for finding where two calculations part (INDEPENDENT_DETAIL=file). */
  readonly parts: { key: string; proceeds: Decimal | null; incidental: Decimal; cost: Decimal | null }[] = [];

  /** A matched part: proceeds net of its share of the incidental costs; null = unknown. */
  add(year: string, proceeds: Decimal | null, incidental: Decimal, cost: Decimal | null, key = ''): void {
    this.parts.push({ key, proceeds, incidental, cost });
    const t = this.years.get(year) ?? {
      proceeds: new Decimal(0),
      costs: new Decimal(0),
      gain: new Decimal(0),
      unpriced: 0,
      unpricedProceeds: new Decimal(0),
    };
    if (proceeds === null || cost === null) {
      t.unpriced += 1;
      if (proceeds !== null) t.unpricedProceeds = t.unpricedProceeds.plus(proceeds).plus(incidental);
    } else {
      t.proceeds = t.proceeds.plus(proceeds).plus(incidental);
      t.costs = t.costs.plus(cost).plus(incidental);
      t.gain = t.gain.plus(proceeds).minus(cost);
    }
    this.years.set(year, t);
  }
}
