import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';

import { SPOT_TAX_TYPES } from '../../src/simulator/data/spot-tax-types.ts';
import type { SpotRecord } from '../../src/simulator/index.ts';
import { DAY, get, NOW, PATHS, useSimulator } from './support/fixture.ts';

describe('spot-record data at the default (demo) scale', () => {
  const demo = useSimulator({ scale: 'demo' });

  it('keeps balance = previous balance + amount + fee exactly for every coin; fee is 0 or negative', () => {
    const oldestFirst = [...demo.sim.truth('spot')].reverse();
    const last = new Map<string, Decimal>();
    for (const record of oldestFirst) {
      const previous = last.get(record.coin) ?? new Decimal(0);
      const expected = previous.plus(record.amount).plus(record.fee);
      if (!expected.equals(record.balance)) throw new Error(`balance broken at ${record.id} (${record.coin})`);
      if (new Decimal(record.fee).isPositive() && !new Decimal(record.fee).isZero())
        throw new Error(`fee > 0 at ${record.id}`);
      last.set(record.coin, new Decimal(record.balance));
    }
    expect(last.size).toBeGreaterThanOrEqual(5);
    expect([...last.values()].every((balance) => !balance.isNegative())).toBe(true);
  });

  it('writes plain decimals (no exponent) and signed amounts', () => {
    const records = demo.sim.truth('spot');
    const plain = /^-?\d+(\.\d+)?$/;
    expect(records.every((r) => plain.test(r.amount) && plain.test(r.fee) && plain.test(r.balance))).toBe(true);
    expect(records.some((r) => r.amount.startsWith('-'))).toBe(true);
    expect(records.some((r) => !r.amount.startsWith('-'))).toBe(true);
  });

  it('uses every spotTaxType of the spec over about a year', () => {
    const records = demo.sim.truth('spot');
    expect(new Set(records.map((r) => r.spotTaxType))).toEqual(new Set(SPOT_TAX_TYPES));
    expect(records.length).toBeGreaterThan(10_000);
    expect(Number(records.at(-1)!.ts)).toBeLessThan(NOW - 360 * DAY);
  });

  it('has a burst of more than 500 records sharing one ts, and paging by id yields each of them once', async () => {
    const counts = new Map<string, number>();
    for (const record of demo.sim.truth('spot')) counts.set(record.ts, (counts.get(record.ts) ?? 0) + 1);
    const [ts, size] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    expect(size).toBeGreaterThan(500);
    const seen: SpotRecord[] = [];
    let idLessThan: string | undefined;
    for (;;) {
      const res = await get<SpotRecord[]>(demo.sim, PATHS.spot, { startTime: ts, endTime: ts, idLessThan });
      if (res.json.data.length === 0) break;
      seen.push(...res.json.data);
      idLessThan = res.json.data.at(-1)!.id;
    }
    expect(seen).toHaveLength(size);
    expect(new Set(seen.map((r) => r.id)).size).toBe(size);
    expect(seen.every((r) => r.ts === ts)).toBe(true);
  });
});

describe('demo scale backfill budget', () => {
  const demo = useSimulator({ scale: 'demo' });

  it('a full backfill of every stream fits well under 2 minutes at the spec rate limits', () => {
    const pages = (records: number, limit: number) => Math.floor(records / limit) + 1;
    const spotTimes = demo.sim.truth('spot').map((r) => Number(r.ts));
    let spotRequests = 0;
    for (let end = NOW; end > NOW - 366 * DAY; end -= 30 * DAY) {
      spotRequests += pages(spotTimes.filter((t) => t > end - 30 * DAY && t <= end).length, 500);
    }
    const positions = demo.sim.truth('positions').filter((p) => Number(p.utime) >= NOW - 90 * DAY);
    const positionRequests = ['USDT', 'BTC|ETH', 'USDC'].reduce(
      (sum, margin) =>
        sum + pages(positions.filter((p) => new RegExp(`^(${margin})$`).test(p.marginCoin!)).length, 100),
      0,
    );
    const transferTimes = demo.sim.truth('transfers').map((r) => Number(r.ts));
    let transferRequests = 0;
    for (let end = NOW; end > NOW - 366 * DAY; end -= 7 * DAY) {
      transferRequests += pages(transferTimes.filter((t) => t > end - 7 * DAY && t <= end).length, 100);
    }
    // spot-record 1/s, history-position and all-sub-deposit-withdrawal 20/s, one after the other.
    const seconds = spotRequests / 1 + positionRequests / 20 + transferRequests / 20;
    expect(seconds).toBeLessThan(75);
    expect(spotTimes.length).toBeGreaterThanOrEqual(10_000);
    expect(spotTimes.length).toBeLessThanOrEqual(15_000);
  });
});
