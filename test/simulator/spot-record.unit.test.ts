import { describe, expect, it } from 'vitest';

import type { SpotRecord } from '../../src/simulator/index.ts';
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

  it('serves concurrent pages, each intact (response buffers are pooled, never shared in flight)', async () => {
    const truth = ctx.sim.truth('spot');
    const windows = Array.from({ length: 24 }, (_, i) => NOW - i * 15 * DAY);
    const pages = await Promise.all(
      windows.map((endTime) => get<SpotRecord[]>(ctx.sim, PATHS.spot, { startTime: endTime - 30 * DAY, endTime })),
    );
    pages.forEach((page, i) => {
      const endTime = windows[i]!;
      const expected = truth.filter((r) => Number(r.ts) <= endTime && Number(r.ts) >= endTime - 30 * DAY);
      expect(page.json.data).toEqual(expected.slice(0, 500));
    });
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
