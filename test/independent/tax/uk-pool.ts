import { Decimal } from 'decimal.js';
import { DateTime } from 'luxon';

import { money } from './prices.ts';
import type { Totals } from './totals.ts';
import type { Sink } from './walk.ts';

/**
 * HMRC's share identification for one token, from the rules' text (TCGA92 s105 same day, s106A(5)
 * the 30 days after, s104 the pool; docs/reports.md "UK share matching"): a London date's disposals
 * are one disposal, its acquisitions one acquisition; a pool holding any token of unknown cost has
 * unknown cost until emptied; a withdrawal leaves the pool at average cost at the day's end.
 */
interface Day {
  acqQ: Decimal;
  acqC: Decimal;
  acqUnknown: boolean;
  disQ: Decimal;
  disP: Decimal;
  disInc: Decimal;
  disUnknown: boolean;
  wdQ: Decimal;
}

const Z = () => new Decimal(0);

export function londonDate(ms: number): string {
  return DateTime.fromMillis(ms, { zone: 'Europe/London' }).toISODate()!;
}

export function ukTaxYear(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const start = m > 4 || (m === 4 && d >= 6) ? y : y - 1;
  return `${start}-${String((start + 1) % 100).padStart(2, '0')}`;
}

export class UkPools implements Sink {
  private readonly coins = new Map<string, Map<string, Day>>();

  private day(coin: string, ms: number): Day {
    const days = this.coins.get(coin) ?? new Map<string, Day>();
    this.coins.set(coin, days);
    const date = londonDate(ms);
    const d = days.get(date) ?? {
      acqQ: Z(),
      acqC: Z(),
      acqUnknown: false,
      disQ: Z(),
      disP: Z(),
      disInc: Z(),
      disUnknown: false,
      wdQ: Z(),
    };
    days.set(date, d);
    return d;
  }

  acquire(coin: string, quantity: Decimal, cost: Decimal | null, ms: number): void {
    const d = this.day(coin, ms);
    d.acqQ = d.acqQ.plus(quantity);
    if (cost === null) d.acqUnknown = true;
    else d.acqC = d.acqC.plus(cost);
  }

  dispose(coin: string, quantity: Decimal, proceeds: Decimal | null, incidental: Decimal, ms: number): void {
    const d = this.day(coin, ms);
    d.disQ = d.disQ.plus(quantity);
    if (proceeds === null) d.disUnknown = true;
    else {
      d.disP = d.disP.plus(proceeds);
      d.disInc = d.disInc.plus(incidental);
    }
  }

  withdraw(coin: string, quantity: Decimal, ms: number): void {
    const d = this.day(coin, ms);
    d.wdQ = d.wdQ.plus(quantity);
  }

  /** Matches every token's days and adds the parts of disposals dated in [from, to] to the totals. */
  finish(totals: Totals, from: string, to: string): void {
    for (const [coin, days] of this.coins) matchToken(coin, days, totals, from, to);
  }
}

function matchToken(coin: string, days: Map<string, Day>, totals: Totals, from: string, to: string): void {
  const order = [...days.keys()].sort();
  const left = new Map<string, { q: Decimal; c: Decimal; unknown: boolean }>();
  const parts = new Map<string, { q: Decimal; cost: Decimal | null }[]>();
  for (const date of order) {
    const d = days.get(date)!;
    const same = Decimal.min(d.acqQ, d.disQ);
    const sameCost = d.acqQ.isZero() ? Z() : money(d.acqC.times(same).div(d.acqQ));
    left.set(date, { q: d.acqQ.minus(same), c: d.acqC.minus(sameCost), unknown: d.acqUnknown });
    parts.set(date, same.gt(0) ? [{ q: same, cost: d.acqUnknown ? null : sameCost }] : []);
  }
  // The 30 days after: earliest disposal first, earliest acquisition first, day 30 included.
  const rest = new Map<string, Decimal>();
  for (const date of order) {
    const d = days.get(date)!;
    let toMatch = d.disQ.minus(Decimal.min(d.acqQ, d.disQ));
    const limit = DateTime.fromISO(date).plus({ days: 30 }).toISODate()!;
    for (const later of order) {
      if (toMatch.isZero()) break;
      if (later <= date || later > limit) continue;
      const l = left.get(later)!;
      const q = Decimal.min(l.q, toMatch);
      if (q.isZero()) continue;
      const c = q.eq(l.q) ? l.c : money(l.c.times(q).div(l.q));
      l.q = l.q.minus(q);
      l.c = l.c.minus(c);
      parts.get(date)!.push({ q, cost: l.unknown ? null : c });
      toMatch = toMatch.minus(q);
    }
    rest.set(date, toMatch);
  }
  let poolQ = Z();
  let poolC = Z();
  let poolUnknown = false;
  const take = (q: Decimal): Decimal => {
    const c = q.gte(poolQ) ? poolC : money(poolC.times(q).div(poolQ));
    poolQ = poolQ.minus(q);
    poolC = poolC.minus(c);
    return c;
  };
  for (const date of order) {
    const d = days.get(date)!;
    const toMatch = rest.get(date)!;
    if (toMatch.gt(0)) {
      const fromPool = Decimal.min(toMatch, poolQ);
      if (fromPool.gt(0)) {
        const c = take(fromPool);
        parts.get(date)!.push({ q: fromPool, cost: poolUnknown ? null : c });
      }
      // More than ever held: a part beyond the holdings at cost 0.
      if (toMatch.gt(fromPool)) parts.get(date)!.push({ q: toMatch.minus(fromPool), cost: Z() });
      if (poolQ.isZero()) poolUnknown = false;
    }
    const own = left.get(date)!;
    if (own.q.gt(0)) {
      poolQ = poolQ.plus(own.q);
      poolC = poolC.plus(own.c);
      if (own.unknown) poolUnknown = true;
    }
    if (d.wdQ.gt(0)) {
      take(Decimal.min(d.wdQ, poolQ));
      if (poolQ.isZero()) {
        poolUnknown = false;
        poolC = Z();
      }
    }
    if (date < from || date > to || d.disQ.isZero()) continue;
    // The day's disposal is one disposal (s105): with its proceeds or any part's cost unknown its
    // gain is unknown, so it is counted as unpriced and in no sum, whole (as SA108 counts disposals).
    const year = ukTaxYear(date);
    const ps = parts.get(date)!;
    if (d.disUnknown || ps.some((p) => p.cost === null)) {
      totals.add(year, d.disUnknown ? null : d.disP, d.disInc, null, `${date} ${coin}`);
      continue;
    }
    // The day's proceeds and incidental costs shared over its parts by quantity.
    for (const p of ps) {
      const proceeds = money(d.disP.times(p.q).div(d.disQ));
      const incidental = money(d.disInc.times(p.q).div(d.disQ));
      totals.add(year, proceeds, incidental, p.cost, `${date} ${coin}`);
    }
  }
}
