import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import type { SpotRecord } from '../../src/simulator/index.ts';
import { SPOT_TAX_TYPES } from '../../src/simulator/data/spot-tax-types.ts';
import { DAY, get, NOW, outcome, PATHS, useSimulator } from './support/fixture.ts';

const ctx = useSimulator();

async function pageAll(params: Record<string, string | number>, limit: number): Promise<SpotRecord[]> {
  const seen: SpotRecord[] = [];
  let idLessThan: string | undefined;
  for (;;) {
    const res = await get<SpotRecord[]>(ctx.sim, PATHS.spot, { ...params, limit, idLessThan });
    expect(res.status).toBe(200);
    if (res.json.data.length === 0) return seen;
    seen.push(...res.json.data);
    idLessThan = res.json.data.at(-1)!.id;
  }
}

describe('spot-record', () => {
  it('returns a bare array, newest first, default window the last 30 days', async () => {
    const res = await get<SpotRecord[]>(ctx.sim, PATHS.spot);
    expect(outcome(res)).toEqual({ status: 200, code: '00000', msg: 'success' });
    expect(Array.isArray(res.json.data)).toBe(true);
    const record = res.json.data[0]!;
    expect(Object.keys(record)).toEqual(['id', 'coin', 'spotTaxType', 'amount', 'fee', 'balance', 'bizOrderId', 'ts']);
    const expected = ctx.sim.truth('spot').filter((r) => Number(r.ts) >= NOW - 30 * DAY);
    expect(res.json.data.map((r) => r.id)).toEqual(expected.slice(0, 500).map((r) => r.id));
  });

  it('pages through a 30-day window by idLessThan, each record exactly once, newest first by (ts, id)', async () => {
    const [startTime, endTime] = [NOW - 60 * DAY, NOW - 30 * DAY];
    const seen = await pageAll({ startTime, endTime }, 9);
    const expected = ctx.sim.truth('spot').filter((r) => Number(r.ts) >= startTime && Number(r.ts) <= endTime);
    expect(expected.length).toBeGreaterThan(9);
    expect(seen).toEqual(expected);
    expect(new Set(seen.map((r) => r.id)).size).toBe(seen.length);
  });

  it('filters by coin', async () => {
    const seen = await pageAll({ coin: 'ETH', startTime: NOW - 30 * DAY, endTime: NOW }, 500);
    const expected = ctx.sim.truth('spot').filter((r) => r.coin === 'ETH' && Number(r.ts) >= NOW - 30 * DAY);
    expect(seen).toEqual(expected);
  });

  it('an unknown coin has no records', async () => {
    const res = await get<SpotRecord[]>(ctx.sim, PATHS.spot, { coin: 'NOPE' });
    expect(res.json.data).toEqual([]);
  });

  it.each([
    [
      { startTime: NOW - 31 * DAY, endTime: NOW },
      '00001',
      'startTime and endTime interval cannot be greater than 30 days',
    ],
    [{ startTime: NOW - 40 * DAY }, '00001', 'startTime and endTime interval cannot be greater than 30 days'],
    [{ startTime: NOW - DAY, endTime: NOW - 2 * DAY }, '40707', 'Start time is greater than end time'],
    [{ limit: 501 }, '40020', 'Parameter limit error'],
    [{ endTime: '-5' }, '40020', 'Parameter endTime error'],
  ])('rejects %j with %s', async (params, code, msg) => {
    const res = await get(ctx.sim, PATHS.spot, params);
    expect(outcome(res)).toEqual({ status: 400, code, msg });
  });
});

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
