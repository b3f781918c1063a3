import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';

import { LotEngine, type LotMatch } from '../../src/accounting/lots/lot-engine.ts';
import type { LotMethod } from '../../src/accounting/lots/lot-method.ts';
import { parseLotMethod } from '../../src/accounting/lots/lot-method.ts';
import { ValidationError } from '../../src/errors/index.ts';

const d = (value: string) => new Decimal(value);
const DAY = 86_400_000;

/** Three lots of BTC (1 @ 100, 2 @ 150 each, 1 @ 120), then 2.5 sold for 500. */
function sellAfterThreeBuys(method: LotMethod): LotMatch[] {
  const engine = new LotEngine(method, 'USDT');
  engine.acquire('BTC', d('1'), d('100'), 1 * DAY, 'a');
  engine.acquire('BTC', d('2'), d('300'), 2 * DAY, 'b');
  engine.acquire('BTC', d('1'), d('120'), 3 * DAY, 'c');
  return engine.dispose('BTC', d('2.5'), d('500'), 10 * DAY, 's');
}

function summary(matches: LotMatch[]): string[] {
  return matches.map(
    (m) => `${m.quantity.toFixed()} ${m.proceeds?.toFixed() ?? '-'} ${m.costBasis?.toFixed() ?? '-'} ${m.lotRecordIds}`,
  );
}

describe('the lot engine', () => {
  // Hand-computed: proceeds are shared by quantity (500 x 1/2.5 = 200, then the 300 left).
  it('consumes the oldest lots first under FIFO, splitting the last one exactly', () => {
    expect(summary(sellAfterThreeBuys('fifo'))).toEqual(['1 200 100 a', '1.5 300 225 b']);
  });

  it('consumes the newest lots first under LIFO', () => {
    expect(summary(sellAfterThreeBuys('lifo'))).toEqual(['1 200 120 c', '1.5 300 225 b']);
  });

  it('consumes the highest unit cost first under HIFO', () => {
    // b costs 150 a unit, c 120, a 100: all of b (400 of the proceeds), then half of c.
    expect(summary(sellAfterThreeBuys('hifo'))).toEqual(['2 400 300 b', '0.5 100 60 c']);
  });

  it('costs every unit at the pool average under average, dated by the queue', () => {
    // Pool 4 BTC for 520 = 130 each: 1 -> 130, then 1.5 of the 3 left (390) -> 195.
    expect(summary(sellAfterThreeBuys('average'))).toEqual(['1 200 130 a', '1.5 300 195 b']);
  });

  it('keeps the rest of a split lot for the next disposal, its cost handed out exactly once', () => {
    const engine = new LotEngine('fifo', 'USDT');
    engine.acquire('ETH', d('3'), d('100'), 0, 'a');
    const first = engine.dispose('ETH', d('1'), d('50'), DAY, 's1');
    const second = engine.dispose('ETH', d('2'), d('90'), 2 * DAY, 's2');
    expect(summary(first)).toEqual(['1 50 33.3333333333 a']);
    expect(summary(second)).toEqual(['2 90 66.6666666667 a']);
    expect(engine.held('ETH').isZero()).toBe(true);
    expect(engine.openLots).toBe(0);
  });

  it('never invents a cost for more than was held: the part beyond is a match without a lot', () => {
    const engine = new LotEngine('fifo', 'USDT');
    engine.acquire('SOL', d('1'), d('20'), 0, 'a');
    const matches = engine.dispose('SOL', d('1.5'), d('45'), DAY, 's');
    expect(summary(matches)).toEqual(['1 30 20 a', '0.5 15 - ']);
    expect(matches[1]!.beyondHoldings).toBe(true);
    expect(matches[1]!.acquiredAtMs).toBeNull();
  });

  it('carries an unpriced lot as unpriced and an unpriced disposal without proceeds', () => {
    const engine = new LotEngine('fifo', 'USDT');
    engine.acquire('XRP', d('10'), null, 0, 'a');
    engine.acquire('XRP', d('10'), d('5'), DAY, 'b');
    expect(summary(engine.dispose('XRP', d('15'), null, 2 * DAY, 's'))).toEqual(['10 - - a', '5 - 2.5 b']);
  });

  it('keeps unpriced lots out of the average pool and behind priced lots under HIFO', () => {
    const average = new LotEngine('average', 'USDT');
    average.acquire('XRP', d('10'), null, 0, 'a');
    average.acquire('XRP', d('10'), d('5'), DAY, 'b');
    average.acquire('XRP', d('10'), d('7'), DAY, 'c');
    // Queue order a, b, c; the pool is b + c = 20 for 12, 0.6 each.
    expect(summary(average.dispose('XRP', d('15'), d('15'), 2 * DAY, 's'))).toEqual(['10 10 - a', '5 5 3 b']);
    const hifo = new LotEngine('hifo', 'USDT');
    hifo.acquire('XRP', d('10'), null, 0, 'a');
    hifo.acquire('XRP', d('10'), d('5'), DAY, 'b');
    expect(summary(hifo.dispose('XRP', d('15'), d('15'), 2 * DAY, 's'))).toEqual(['10 10 5 b', '5 5 - a']);
  });

  it('breaks HIFO ties by age, whatever the order of the heap', () => {
    const engine = new LotEngine('hifo', 'USDT');
    for (let i = 0; i < 6; i++) engine.acquire('BTC', d('1'), d('10'), i * DAY, `l${i}`);
    engine.acquire('BTC', d('2'), d('20'), 9 * DAY, 'same-unit-cost');
    const order = engine.dispose('BTC', d('8'), d('80'), 10 * DAY, 's').map((m) => m.lotRecordIds);
    expect(order).toEqual(['l0', 'l1', 'l2', 'l3', 'l4', 'l5', 'same-unit-cost']);
  });

  it('gives the valuation currency no lots', () => {
    const engine = new LotEngine('fifo', 'USDT');
    engine.acquire('USDT', d('100'), d('100'), 0, 'a');
    expect(engine.dispose('USDT', d('50'), d('50'), DAY, 's')).toEqual([]);
    expect(engine.openLots).toBe(0);
  });

  it('removes lots without realizing anything (a withdrawal)', () => {
    const engine = new LotEngine('fifo', 'USDT');
    engine.acquire('BTC', d('1'), d('100'), 0, 'a');
    engine.acquire('BTC', d('1'), d('200'), DAY, 'b');
    expect(engine.remove('BTC', d('1.5')).toFixed()).toBe('1.5');
    expect(summary(engine.dispose('BTC', d('0.5'), d('150'), 2 * DAY, 's'))).toEqual(['0.5 150 100 b']);
  });

  it('refuses a negative quantity and an unknown method, naming the field', () => {
    const engine = new LotEngine('fifo', 'USDT');
    expect(() => engine.acquire('BTC', d('-1'), d('1'), 0, 'a')).toThrow(ValidationError);
    expect(() => parseLotMethod('newest')).toThrow(/method.*fifo, lifo, hifo, average/);
    expect(parseLotMethod(' HIFO ')).toBe('hifo');
    expect(parseLotMethod(undefined)).toBe('fifo');
  });
});
