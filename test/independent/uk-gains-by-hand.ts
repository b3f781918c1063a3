import { Decimal } from 'decimal.js';

/**
 * An independent reading of HMRC's rules for a handful of events, written without importing
 * src/: the share identification of TCGA92 s105 (same day), s106A(5) (the 30 days after) and s104
 * (the pool at average cost), with fees as CRYPTO22150 and CRYPTO22280 say (a fee paying no trade:
 * the token disposed of at market value; a fee in a third token: that token disposed of at market
 * value and the value an allowable cost of the trade; a fee in the token sold: its value at the
 * trade's price an incidental cost of the disposal). Events are already in pounds; proceeds gross,
 * incidental costs of disposal in the allowable costs, as SA108 asks.
 */
export interface HandEvent {
  readonly day: number;
  readonly coin: string;
  /** + acquired, - disposed. */
  readonly quantity: string;
  /**
   * Acquisition cost (fees allowed on it included), or gross disposal proceeds, in pounds (SA108's
   * "disposal proceeds": before the incidental costs of disposal).
   */
  readonly pounds: string;
  /** A disposal's incidental costs (fees paying for it, TCGA92 s38(1)(c)), in pounds: allowable costs. */
  readonly costs?: string;
}

export interface HandGain {
  readonly day: number;
  readonly coin: string;
  readonly proceeds: string;
  readonly cost: string;
}

/** Gains per token and day of disposal: proceeds and allowable cost, exact to the penny's fraction. */
export function ukGainsByHand(events: readonly HandEvent[]): HandGain[] {
  const out: HandGain[] = [];
  const coins = [...new Set(events.map((e) => e.coin))].sort();
  for (const coin of coins) {
    const days = new Map<
      number,
      { bought: Decimal; cost: Decimal; sold: Decimal; proceeds: Decimal; incidental: Decimal }
    >();
    for (const e of events.filter((x) => x.coin === coin)) {
      const d = days.get(e.day) ?? {
        bought: new Decimal(0),
        cost: new Decimal(0),
        sold: new Decimal(0),
        proceeds: new Decimal(0),
        incidental: new Decimal(0),
      };
      const q = new Decimal(e.quantity);
      if (q.gt(0)) {
        d.bought = d.bought.plus(q);
        d.cost = d.cost.plus(e.pounds);
      } else {
        d.sold = d.sold.minus(q);
        d.proceeds = d.proceeds.plus(e.pounds);
        d.incidental = d.incidental.plus(e.costs ?? 0);
      }
      days.set(e.day, d);
    }
    const order = [...days.keys()].sort((a, b) => a - b);
    // Acquisitions left for later rules: same day first, for every day, before any 30-day match.
    const left = new Map<number, { q: Decimal; c: Decimal }>();
    const matched = new Map<number, Decimal>();
    for (const day of order) {
      const d = days.get(day)!;
      const same = Decimal.min(d.bought, d.sold);
      const sameCost = d.bought.isZero() ? new Decimal(0) : d.cost.times(same).div(d.bought);
      left.set(day, { q: d.bought.minus(same), c: d.cost.minus(sameCost) });
      matched.set(day, sameCost);
    }
    let poolQ = new Decimal(0);
    let poolC = new Decimal(0);
    for (const day of order) {
      const d = days.get(day)!;
      let toMatch = d.sold.minus(Decimal.min(d.bought, d.sold));
      // The incidental costs of the day's disposal are allowable costs of it (s38(1)(c)).
      let cost = matched.get(day)!.plus(d.incidental);
      for (const later of order) {
        if (later <= day || later > day + 30 || toMatch.isZero()) continue;
        const l = left.get(later)!;
        const q = Decimal.min(l.q, toMatch);
        if (q.isZero()) continue;
        const c = l.c.times(q).div(l.q);
        l.q = l.q.minus(q);
        l.c = l.c.minus(c);
        cost = cost.plus(c);
        toMatch = toMatch.minus(q);
      }
      if (toMatch.gt(0)) {
        const c = poolC.times(toMatch).div(poolQ);
        cost = cost.plus(c);
        poolQ = poolQ.minus(toMatch);
        poolC = poolC.minus(c);
      }
      const own = left.get(day)!;
      poolQ = poolQ.plus(own.q);
      poolC = poolC.plus(own.c);
      if (d.sold.gt(0))
        out.push({ day, coin, proceeds: d.proceeds.toFixed(), cost: cost.toDecimalPlaces(10).toFixed() });
    }
  }
  return out.sort((a, b) => a.day - b.day || (a.coin < b.coin ? -1 : 1));
}
