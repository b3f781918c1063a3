import { describe, expect, it } from 'vitest';

import type { PositionRecord } from '../../src/simulator/index.ts';
import { DAY, get, NOW, outcome, PATHS, useSimulator } from './support/fixture.ts';

const ctx = useSimulator();
type Page = { list: PositionRecord[]; endId: string | null };

const USDT_SYMBOLS = new Set(['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'DOGEUSDT']);

describe('history-position', () => {
  it('returns newest first with the documented fields, default limit 20, lowercase ctime/utime', async () => {
    const res = await get<Page>(ctx.sim, PATHS.positions);
    expect(outcome(res)).toEqual({ status: 200, code: '00000', msg: 'success' });
    const { list, endId } = res.json.data;
    expect(list).toHaveLength(20);
    expect(Object.keys(list[0]!).sort()).toEqual(
      [
        'positionId',
        'symbol',
        'marginCoin',
        'holdSide',
        'posMode',
        'openAvgPrice',
        'closeAvgPrice',
        'marginMode',
        'openTotalPos',
        'closeTotalPos',
        'pnl',
        'netProfit',
        'totalFunding',
        'openFee',
        'closeFee',
        'ctime',
        'utime',
      ].sort(),
    );
    expect(endId).toBe(list.at(-1)!.positionId);
    expect(list.every((p) => USDT_SYMBOLS.has(p.symbol!))).toBe(true);
    expect(list.every((p) => Number(p.utime) <= NOW)).toBe(true);
  });

  it('pages through the whole 90-day window once each, newest first, by idLessThan = endId, until an empty list', async () => {
    const seen: PositionRecord[] = [];
    let idLessThan: string | undefined;
    for (let page = 0; page < 100; page++) {
      const res = await get<Page>(ctx.sim, PATHS.positions, { productType: 'USDT-FUTURES', limit: 7, idLessThan });
      const { list, endId } = res.json.data;
      if (list.length === 0) {
        expect(endId).toBeNull();
        break;
      }
      expect(endId).toBe(list.at(-1)!.positionId);
      seen.push(...list);
      idLessThan = endId!;
    }
    const expected = ctx.sim
      .truth('positions')
      .filter((p) => USDT_SYMBOLS.has(p.symbol!) && Number(p.utime) >= NOW - 90 * DAY);
    expect(expected.length).toBeGreaterThan(20);
    expect(seen.map((p) => p.positionId)).toEqual(expected.map((p) => p.positionId));
    for (let i = 1; i < seen.length; i++) {
      const [a, b] = [seen[i - 1]!, seen[i]!];
      expect(
        Number(a.utime) > Number(b.utime) || (a.utime === b.utime && BigInt(a.positionId!) > BigInt(b.positionId!)),
      ).toBe(true);
    }
  });

  it('filters by symbol, which overrides productType', async () => {
    const res = await get<Page>(ctx.sim, PATHS.positions, {
      symbol: 'BTCUSD',
      productType: 'USDT-FUTURES',
      limit: 100,
    });
    expect(res.json.data.list.length).toBeGreaterThan(0);
    expect(res.json.data.list.every((p) => p.symbol === 'BTCUSD' && p.marginCoin === 'BTC')).toBe(true);
  });

  it('ignores productType when a symbol is given, even a value it would otherwise reject', async () => {
    const res = await get<Page>(ctx.sim, PATHS.positions, { symbol: 'BTCUSD', productType: 'FOO', limit: 100 });
    expect(res.status).toBe(200);
    expect(res.json.data.list.length).toBeGreaterThan(0);
    expect(res.json.data.list.every((p) => p.symbol === 'BTCUSD')).toBe(true);
    const without = await get<Page>(ctx.sim, PATHS.positions, { productType: 'FOO' });
    expect(without.json.code).toBe('40020');
  });

  it('filters by productType', async () => {
    const res = await get<Page>(ctx.sim, PATHS.positions, { productType: 'USDC-FUTURES', limit: 100 });
    expect(res.json.data.list.every((p) => p.marginCoin === 'USDC')).toBe(true);
  });

  it('keeps to the startTime/endTime window', async () => {
    const [startTime, endTime] = [NOW - 20 * DAY, NOW - 10 * DAY];
    const res = await get<Page>(ctx.sim, PATHS.positions, { startTime, endTime, limit: 100 });
    const utimes = res.json.data.list.map((p) => Number(p.utime));
    expect(utimes.length).toBeGreaterThan(0);
    expect(utimes.every((t) => t >= startTime && t <= endTime)).toBe(true);
  });

  it('hides positions the simulated clock has not reached, and shows them once it has', async () => {
    const future = ctx.sim.context.dataOf(ctx.sim.demo.uid).positions;
    const before = ctx.sim.truth('positions').length;
    ctx.sim.clock.advance(2 * DAY);
    const after = ctx.sim.truth('positions').length;
    ctx.sim.clock.set(NOW);
    expect(before).toBeLessThan(after);
    expect(after).toBeLessThanOrEqual(future.size);
  });

  it.each([
    [{ startTime: NOW - 91 * DAY }, '40704', 'Can only check the data of the last three months'],
    [{ startTime: NOW - 5 * DAY, endTime: NOW - 6 * DAY }, '40707', 'Start time is greater than end time'],
    [
      { startTime: NOW - 89 * DAY, endTime: NOW + 2 * DAY },
      '00001',
      'startTime and endTime interval cannot be greater than 90 days',
    ],
    [{ productType: 'SPOT' }, '40020', 'Parameter productType error'],
    [{ limit: 101 }, '40020', 'Parameter limit error'],
    [{ limit: 0 }, '40020', 'Parameter limit error'],
    [{ startTime: 'yesterday' }, '40020', 'Parameter startTime error'],
    [{ idLessThan: 'abc' }, '40020', 'Parameter idLessThan error'],
  ])('rejects %j with %s', async (params, code, msg) => {
    const res = await get(ctx.sim, PATHS.positions, params);
    expect(outcome(res)).toEqual({ status: 400, code, msg });
  });

  it('an endTime older than 90 days without startTime is 40704', async () => {
    const res = await get(ctx.sim, PATHS.positions, { endTime: NOW - 100 * DAY });
    expect(res.json.code).toBe('40704');
  });

  it('moves the 90-day horizon with the clock', async () => {
    const startTime = NOW - 80 * DAY;
    expect((await get(ctx.sim, PATHS.positions, { startTime })).status).toBe(200);
    ctx.sim.clock.advance(11 * DAY);
    const moved = await get(ctx.sim, PATHS.positions, { startTime });
    ctx.sim.clock.set(NOW);
    expect(moved.json.code).toBe('40704');
  });
});

describe('history-position timestamp spelling', () => {
  const camel = useSimulator({ timestampSpelling: 'camel' });

  it('sends cTime/uTime when asked to', async () => {
    const res = await get<Page>(camel.sim, PATHS.positions, { limit: 1 });
    const item = res.json.data.list[0]!;
    expect(item.cTime).toMatch(/^\d{13}$/);
    expect(item.uTime).toMatch(/^\d{13}$/);
    expect(item).not.toHaveProperty('ctime');
  });

  it('switches at run time', async () => {
    camel.sim.setTimestampSpelling('lower');
    const res = await get<Page>(camel.sim, PATHS.positions, { limit: 1 });
    camel.sim.setTimestampSpelling('camel');
    expect(res.json.data.list[0]).toHaveProperty('utime');
  });
});
