import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { minus, plus, ZERO } from '../../src/accounting/lots/lot-arithmetic.ts';
import { LotEngine, type LotMatch } from '../../src/accounting/lots/lot-engine.ts';
import { LOT_METHODS, type LotMethod } from '../../src/accounting/lots/lot-method.ts';

/**
 * Random trade sequences over two coins. Quantities are whole thousandths and every lot's unit cost a
 * whole number per thousandth, so the cost of any part of a lot is exact and an independent model
 * (one entry per thousandth) can say what each method must have consumed.
 */
interface Buy {
  readonly kind: 'buy';
  readonly coin: 'BTC' | 'ETH';
  readonly units: number;
  readonly unitCost: number;
}
interface Sell {
  readonly kind: 'sell';
  readonly coin: 'BTC' | 'ETH';
  readonly units: number;
  readonly proceeds: string;
}
type Step = Buy | Sell;

const coin = fc.constantFrom<'BTC' | 'ETH'>('BTC', 'ETH');
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('buy' as const),
    coin,
    units: fc.integer({ min: 1, max: 5_000 }),
    unitCost: fc.integer({ min: 1, max: 90_000 }),
  }),
  fc.record({
    kind: fc.constant('sell' as const),
    coin,
    units: fc.integer({ min: 1, max: 6_000 }),
    proceeds: fc.bigInt({ min: 0n, max: 10n ** 12n }).map((cents) => new Decimal(cents.toString()).div(100).toFixed()),
  }),
);

const qty = (units: number) => new Decimal(units).div(1000);

function run(method: LotMethod, steps: Step[]) {
  const engine = new LotEngine(method, 'USDT');
  const matches: LotMatch[][] = [];
  steps.forEach((s, i) => {
    if (s.kind === 'buy') engine.acquire(s.coin, qty(s.units), new Decimal(s.units * s.unitCost), i, `b${i}`);
    else matches.push(engine.dispose(s.coin, qty(s.units), new Decimal(s.proceeds), i, `s${i}`));
  });
  return { engine, matches };
}

/** The cost each method must take, thousandth by thousandth (average is left to conservation). */
function modelCosts(method: Exclude<LotMethod, 'average'>, steps: Step[]): Decimal[] {
  const held: Record<string, { unitCost: number; seq: number }[]> = { BTC: [], ETH: [] };
  const costs: Decimal[] = [];
  steps.forEach((s, i) => {
    const units = held[s.coin]!;
    if (s.kind === 'buy') {
      for (let u = 0; u < s.units; u++) units.push({ unitCost: s.unitCost, seq: i });
      return;
    }
    if (method === 'hifo') units.sort((a, b) => b.unitCost - a.unitCost || a.seq - b.seq);
    const take = Math.min(s.units, units.length);
    const taken = method === 'lifo' ? units.splice(units.length - take, take) : units.splice(0, take);
    if (method === 'hifo') units.sort((a, b) => a.seq - b.seq);
    costs.push(new Decimal(taken.reduce((sum, unit) => sum + unit.unitCost, 0)));
  });
  return costs;
}

const sum = (values: (Decimal | null)[]) => values.reduce<Decimal>((total, v) => plus(total, v ?? ZERO), ZERO);

describe('the lot engine, over random trade sequences', () => {
  it('never consumes more than was acquired, and hands out each lot cost exactly once, under every method', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), fc.constantFrom(...LOT_METHODS), (steps, method) => {
        const { engine, matches } = run(method, steps);
        for (const c of ['BTC', 'ETH'] as const) {
          const bought = steps.filter((s) => s.coin === c && s.kind === 'buy').reduce((n, s) => n + s.units, 0);
          const rows = matches.flat().filter((m) => m.coin === c && !m.beyondHoldings);
          const consumed = sum(rows.map((m) => m.quantity));
          expect(consumed.lte(qty(bought))).toBe(true);
          expect(plus(consumed, engine.held(c)).eq(qty(bought))).toBe(true);
          // Selling what is left takes the rest of the cost: all of it, to the last digit.
          const rest = engine.dispose(c, engine.held(c), ZERO, steps.length, 'end');
          const cost = steps
            .filter((s): s is Buy => s.coin === c && s.kind === 'buy')
            .reduce((n, s) => n + s.units * s.unitCost, 0);
          expect(sum([...rows, ...rest].map((m) => m.costBasis)).eq(cost)).toBe(true);
        }
        for (const disposal of matches) {
          // The matches of one disposal share its proceeds exactly.
          const given = steps.filter((s): s is Sell => s.kind === 'sell')[matches.indexOf(disposal)]!;
          if (disposal.length > 0) expect(sum(disposal.map((m) => m.proceeds)).eq(given.proceeds)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('realizes total proceeds - the cost of the lots the method must sell, as the sum of gains', () => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 60 }),
        fc.constantFrom('fifo', 'lifo', 'hifo' as const),
        (steps, method) => {
          const { matches } = run(method, steps);
          const held = matches.flat().filter((m) => !m.beyondHoldings);
          const gains = sum(held.map((m) => minus(m.proceeds!, m.costBasis!)));
          const proceeds = sum(held.map((m) => m.proceeds));
          const expected = minus(proceeds, sum(modelCosts(method, steps)));
          expect(gains.toFixed()).toBe(expected.toFixed());
          // Per disposal too: the model's cost of each sale is what the engine's matches cost.
          const perSale = matches.map((ms) => sum(ms.filter((m) => !m.beyondHoldings).map((m) => m.costBasis)));
          expect(perSale.map((c) => c.toFixed())).toEqual(modelCosts(method, steps).map((c) => c.toFixed()));
        },
      ),
      { numRuns: 300 },
    );
  });
});
