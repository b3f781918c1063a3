import { Decimal } from 'decimal.js';
import { DateTime } from 'luxon';

import { money } from './prices.ts';
import type { Totals } from './totals.ts';
import type { Sink } from './walk.ts';

/**
 * German private sales from the rules' text (EStG §23 (1) Satz 1 Nr. 2; BMF 10.5.2022 Rn. 59
 * FIFO; docs/reports.md "German private sales"): lots first in, first out in the order they came
 * in; a sale within a year of its lot's acquisition (Berlin dates, the same date a year later
 * included) is taxable, a part without an acquisition date too; the rest tax-free (kept apart).
 */
interface Lot {
  q: Decimal;
  cost: Decimal | null;
  acquiredMs: number | null;
}

export function berlinDate(ms: number): string {
  return DateTime.fromMillis(ms, { zone: 'Europe/Berlin' }).toISODate()!;
}

export class DeFifo implements Sink {
  private readonly queues = new Map<string, Lot[]>();
  /** Tax-free net gain per year (sales more than a year after their acquisition). */
  readonly taxFree = new Map<string, Decimal>();

  constructor(
    private readonly totals: Totals,
    private readonly from: string,
    private readonly to: string,
  ) {}

  private queue(coin: string): Lot[] {
    const q = this.queues.get(coin) ?? [];
    this.queues.set(coin, q);
    return q;
  }

  acquire(coin: string, quantity: Decimal, cost: Decimal | null, ms: number, acquiredMs?: number): void {
    this.queue(coin).push({ q: quantity, cost, acquiredMs: cost === null ? null : (acquiredMs ?? ms) });
  }

  private take(coin: string, quantity: Decimal): { q: Decimal; cost: Decimal | null; acquiredMs: number | null }[] {
    const queue = this.queue(coin);
    const out: { q: Decimal; cost: Decimal | null; acquiredMs: number | null }[] = [];
    let left = quantity;
    while (left.gt(0) && queue.length > 0) {
      const lot = queue[0]!;
      const q = Decimal.min(lot.q, left);
      const cost = lot.cost === null ? null : q.eq(lot.q) ? lot.cost : money(lot.cost.times(q).div(lot.q));
      out.push({ q, cost, acquiredMs: lot.acquiredMs });
      lot.q = lot.q.minus(q);
      if (lot.cost !== null && cost !== null) lot.cost = lot.cost.minus(cost);
      if (lot.q.isZero()) queue.shift();
      left = left.minus(q);
    }
    // Beyond the holdings: cost 0, no acquisition date (taxable).
    if (left.gt(0)) out.push({ q: left, cost: new Decimal(0), acquiredMs: null });
    return out;
  }

  dispose(coin: string, quantity: Decimal, proceeds: Decimal | null, incidental: Decimal, ms: number): void {
    const parts = this.take(coin, quantity);
    const date = berlinDate(ms);
    if (date < this.from || date > this.to) return;
    const year = date.slice(0, 4);
    for (const p of parts) {
      const share = proceeds === null ? null : money(proceeds.times(p.q).div(quantity));
      const inc = proceeds === null ? new Decimal(0) : money(incidental.times(p.q).div(quantity));
      const taxable =
        p.acquiredMs === null || date <= DateTime.fromISO(berlinDate(p.acquiredMs)).plus({ years: 1 }).toISODate()!;
      if (taxable) this.totals.add(year, share, inc, p.cost, `${date} ${coin}`);
      else if (share !== null && p.cost !== null)
        this.taxFree.set(year, (this.taxFree.get(year) ?? new Decimal(0)).plus(share).minus(p.cost));
    }
  }

  withdraw(coin: string, quantity: Decimal): void {
    this.take(coin, quantity);
  }
}
