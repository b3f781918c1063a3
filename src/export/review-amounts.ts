import { Decimal } from 'decimal.js';

import { plain, plus, ZERO } from '../accounting/lots/lot-arithmetic.ts';
import type { ReportColumn } from './report-definition.ts';

/** Per coin, the rows of one review flag and what they move (manifest `reviewAmounts`). */
export interface ReviewAmount {
  rows: number;
  /** Sum of the rows' `quantity`, exact. */
  quantity: string;
  /** Sum of the rows' `proceeds` that are stated, exact (in the report's valuation currency). */
  proceeds: string;
  /** Rows among them whose proceeds are empty (unpriced): not in `proceeds`. */
  proceedsMissing: number;
}

/** flag (without `review:`) -> coin -> amounts. */
export type ReviewAmounts = Record<string, Record<string, ReviewAmount>>;

/** Which columns of a gains report name a row's coin, quantity and proceeds (report-definition `reviewAmounts`). */
export interface ReviewAmountColumns {
  readonly coin: string;
  readonly quantity: string;
  readonly proceeds: string;
}

/**
 * The flags whose rows an accountant must price or explain before filing, and whose size the
 * manifest states beside their row count (docs/reports.md, "Unknown cost"): parts of unknown cost
 * (in no sum), parts sold beyond the holdings (in the sums at cost 0), withdrawals beyond them
 * (nothing realized), parts consuming coins a margin `compensate` paid in (in the sums at their
 * market value, which an accountant may judge otherwise). A row count alone says nothing of how
 * much of the year's proceeds they are.
 */
export const AMOUNT_FLAGS: readonly string[] = [
  'unknown-cost',
  'disposal-exceeds-holdings',
  'withdrawal-exceeds-holdings',
  'compensate-lot',
];

interface Sum {
  rows: number;
  quantity: Decimal;
  proceeds: Decimal;
  proceedsMissing: number;
}

/** Sums, per AMOUNT_FLAGS flag and coin, the quantity and proceeds of the rows an export writes. */
export class ReviewAmountCounter {
  private readonly coin: number;
  private readonly quantity: number;
  private readonly proceeds: number;
  private readonly sums = new Map<string, Map<string, Sum>>();

  constructor(columns: readonly ReportColumn[], names: ReviewAmountColumns) {
    const index = (name: string) => {
      const at = columns.findIndex((c) => c.header === name);
      // A definition naming a column it does not have is a programming error, found by any export of it.
      if (at < 0) throw new Error(`reviewAmounts names the column ${name}, which the report does not have`);
      return at;
    };
    this.coin = index(names.coin);
    this.quantity = index(names.quantity);
    this.proceeds = index(names.proceeds);
  }

  /** One written row flagged `review:<flag>`, its cells as the report gave them (exact text). */
  add(flag: string, cells: readonly (string | null)[]): void {
    if (!AMOUNT_FLAGS.includes(flag)) return;
    let coins = this.sums.get(flag);
    if (coins === undefined) this.sums.set(flag, (coins = new Map()));
    const coin = cells[this.coin] ?? '';
    let sum = coins.get(coin);
    if (sum === undefined) {
      coins.set(coin, (sum = { rows: 0, quantity: ZERO, proceeds: ZERO, proceedsMissing: 0 }));
    }
    sum.rows++;
    const quantity = cells[this.quantity];
    if (quantity !== null && quantity !== undefined && quantity !== '')
      sum.quantity = plus(sum.quantity, new Decimal(quantity));
    const proceeds = cells[this.proceeds];
    if (proceeds === null || proceeds === undefined || proceeds === '') sum.proceedsMissing++;
    else sum.proceeds = plus(sum.proceeds, new Decimal(proceeds));
  }

  /** Flags and coins in a stable order (the manifest's JSON is compared byte for byte in tests). */
  result(): ReviewAmounts {
    const out: ReviewAmounts = {};
    for (const flag of [...this.sums.keys()].sort()) {
      const coins = this.sums.get(flag)!;
      out[flag] = {};
      for (const coin of [...coins.keys()].sort()) {
        const s = coins.get(coin)!;
        out[flag][coin] = {
          rows: s.rows,
          quantity: plain(s.quantity),
          proceeds: plain(s.proceeds),
          proceedsMissing: s.proceedsMissing,
        };
      }
    }
    return out;
  }
}
