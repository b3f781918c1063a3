import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';

import { SPOT_COINS } from '../../src/simulator/data/coins.ts';
import { resolveScale } from '../../src/simulator/data/scale.ts';
import { generateSpotRecords, type SpotColumns } from '../../src/simulator/data/spot-generator.ts';
import { SPOT_TAX_TYPES } from '../../src/simulator/data/spot-tax-types.ts';

const ANCHOR = Date.UTC(2026, 5, 15);
const demo = resolveScale('demo');
const generate = (seed: number) =>
  generateSpotRecords({ seed, count: demo.spotRecords, bursts: demo.bursts, anchor: ANCHOR });
const TRADE_LEG = new Set(['Buy', 'Sell', 'Buy Crypto', 'Sell Crypto', 'Exchange spending', 'Exchange income']);

interface Leg {
  ts: number;
  coin: string;
  type: string;
  amount: number;
  fee: number;
}

/** The records of each order (trade legs and BGB fee records), by bizOrderId. */
function orders(c: SpotColumns): Map<number, Leg[]> {
  const byOrder = new Map<number, Leg[]>();
  for (let i = 0; i < c.ids.length; i++) {
    const type = SPOT_TAX_TYPES[c.type[i]!]!;
    if (!TRADE_LEG.has(type) && type !== 'Transaction fee deduct') continue;
    const legs = byOrder.get(c.bizOrderId[i]!) ?? [];
    legs.push({
      ts: Math.floor(c.ids[i]! / 1000),
      coin: SPOT_COINS[c.coin[i]!]!.coin,
      type,
      amount: c.amount[i]!,
      fee: c.fee[i]!,
    });
    byOrder.set(c.bizOrderId[i]!, legs);
  }
  return byOrder;
}

describe('spot trades as orders (docs/exchange-api.md §5.4.1)', () => {
  const columns = generate(42);
  const byOrder = orders(columns);
  const fillsOf = (legs: Leg[]) => [...new Set(legs.map((l) => l.ts))].map((ts) => legs.filter((l) => l.ts === ts));

  it('writes every trade record as part of an order: each fill one leg given away and one received, in one ms', () => {
    expect(byOrder.size).toBeGreaterThan(1_000);
    for (const [id, legs] of byOrder) {
      for (const fill of fillsOf(legs)) {
        const trade = fill.filter((l) => TRADE_LEG.has(l.type));
        const out = trade.filter((l) => l.amount < 0);
        const into = trade.filter((l) => l.amount > 0);
        if (out.length !== 1 || into.length !== 1) throw new Error(`order ${id}: a fill without its two legs`);
        expect(out[0]!.coin).not.toBe(into[0]!.coin);
        // The fee is charged on the received leg only.
        expect(out[0]!.fee).toBe(0);
        expect(into[0]!.fee).toBeLessThanOrEqual(0);
      }
      const coinsOut = new Set(legs.filter((l) => TRADE_LEG.has(l.type) && l.amount < 0).map((l) => l.coin));
      expect(coinsOut.size).toBe(1);
    }
  });

  it('has multi-fill orders, some spanning hours or days and a month end', () => {
    const spans = [...byOrder.values()].map((legs) => ({
      fills: fillsOf(legs).length,
      hours: (Math.max(...legs.map((l) => l.ts)) - Math.min(...legs.map((l) => l.ts))) / 3_600_000,
      months: new Set(legs.map((l) => DateTime.fromMillis(l.ts, { zone: 'utc' }).toFormat('yyyy-MM'))).size,
    }));
    expect(spans.filter((s) => s.fills > 1).length).toBeGreaterThan(100);
    expect(spans.filter((s) => s.hours >= 24).length).toBeGreaterThan(20);
    expect(spans.filter((s) => s.months > 1).length).toBeGreaterThan(3);
  });

  it('pays some fees in BGB as a Transaction fee deduct record of the order, beside its fill', () => {
    const bgb = [...byOrder.values()].filter((legs) => legs.some((l) => l.type === 'Transaction fee deduct'));
    expect(bgb.length).toBeGreaterThan(50);
    for (const legs of bgb) {
      for (const record of legs.filter((l) => l.type === 'Transaction fee deduct')) {
        expect(record.coin).toBe('BGB');
        expect(record.amount).toBeLessThan(0);
        expect(legs.some((l) => TRADE_LEG.has(l.type) && l.ts === record.ts && l.amount > 0 && l.fee === 0)).toBe(true);
      }
    }
  });

  it('is the same from the same seed, different from another', () => {
    const again = generate(42);
    expect(Array.from(again.bizOrderId)).toEqual(Array.from(columns.bizOrderId));
    expect(Array.from(again.amount)).toEqual(Array.from(columns.amount));
    expect(Array.from(generate(7).amount)).not.toEqual(Array.from(columns.amount));
  });
});
