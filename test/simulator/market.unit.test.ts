import { describe, expect, it } from 'vitest';

import { get, NOW, outcome, PATHS, useSimulator } from './support/fixture.ts';
import { call } from './support/signer.ts';

const ctx = useSimulator();
const HOUR = 3_600_000;

describe('fund-net-flow', () => {
  it('returns 24 hourly points for the last 24 hours, oldest first, without auth', async () => {
    const res = await call<{ netFlow: string; ts: string }[]>(ctx.sim.url, undefined, 'GET', PATHS.netFlow, {
      query: 'symbol=BTCUSDT',
    });
    expect(outcome(res)).toEqual({ status: 200, code: '00000', msg: 'success' });
    const points = res.json.data;
    expect(points).toHaveLength(24);
    const last = Math.floor(NOW / HOUR) * HOUR;
    expect(points.map((p) => Number(p.ts))).toEqual(Array.from({ length: 24 }, (_, i) => last - (23 - i) * HOUR));
    expect(points.every((p) => /^-?\d+\.\d{4}$/.test(p.netFlow))).toBe(true);
    expect(points.some((p) => p.netFlow.startsWith('-'))).toBe(true);
  });

  it('gives the same series for the same hour', async () => {
    const a = await get(ctx.sim, PATHS.netFlow, { symbol: 'ETHUSDT' });
    const b = await get(ctx.sim, PATHS.netFlow, { symbol: 'ETHUSDT' });
    expect(a.json.data).toEqual(b.json.data);
  });

  it.each([
    [{}, '40019', 'Parameter symbol cannot be empty'],
    [{ symbol: 'NOPEUSDT' }, '40020', 'Parameter symbol error'],
  ])('rejects %j with %s', async (params, code, msg) => {
    expect(outcome(await get(ctx.sim, PATHS.netFlow, params))).toEqual({ status: 400, code, msg });
  });
});

describe('open-interest-limit', () => {
  it('returns the limits of a symbol in its category', async () => {
    const res = await get<Record<string, string>>(ctx.sim, PATHS.oiLimit, {
      symbol: 'ETHUSD',
      category: 'COIN-FUTURES',
    });
    expect(outcome(res)).toEqual({ status: 200, code: '00000', msg: 'success' });
    expect(Object.keys(res.json.data)).toEqual(['symbol', 'singleUserLimit', 'masterSubLimit', 'marketMakerLimit']);
    expect(res.json.data.symbol).toBe('ETHUSD');
    expect(Number(res.json.data.masterSubLimit)).toBeGreaterThan(Number(res.json.data.singleUserLimit));
  });

  it('differs per symbol and category', async () => {
    const usdt = await get<Record<string, string>>(ctx.sim, PATHS.oiLimit, {
      symbol: 'BTCUSDT',
      category: 'USDT-FUTURES',
    });
    const coin = await get<Record<string, string>>(ctx.sim, PATHS.oiLimit, {
      symbol: 'BTCUSD',
      category: 'COIN-FUTURES',
    });
    expect(usdt.json.data.singleUserLimit).not.toBe(coin.json.data.singleUserLimit);
  });

  it.each([
    [{ category: 'USDT-FUTURES' }, '40019', 'Parameter symbol cannot be empty'],
    [{ symbol: 'BTCUSDT' }, '40019', 'Parameter category cannot be empty'],
    [{ symbol: 'BTCUSDT', category: 'SPOT' }, '40020', 'Parameter category error'],
    [{ symbol: 'BTCUSDT', category: 'COIN-FUTURES' }, '40020', 'Parameter symbol error'],
  ])('rejects %j with %s', async (params, code, msg) => {
    expect(outcome(await get(ctx.sim, PATHS.oiLimit, params))).toEqual({ status: 400, code, msg });
  });
});
