import { beforeEach, describe, expect, it } from 'vitest';

import { RateLimits } from '../../src/simulator/rate-limit/rate-limits.ts';
import { SlidingWindowLimiter } from '../../src/simulator/rate-limit/sliding-window.ts';
import { get, PATHS, useSimulator } from './support/fixture.ts';
import { call } from './support/signer.ts';

const ctx = useSimulator({ rateLimits: { enabled: true } });

beforeEach(() => {
  ctx.sim.rateLimits.configure({ enabled: true });
});

const TOO_MANY = { code: '429', msg: 'Too Many Requests', data: null };

describe('rate limits (docs/exchange-api.md §4)', () => {
  it('history-position: 21 requests inside one second give exactly one 429 with the documented body', async () => {
    const results = await Promise.all(Array.from({ length: 21 }, () => get(ctx.sim, PATHS.positions)));
    const limited = results.filter((r) => r.status === 429);
    expect(limited).toHaveLength(1);
    expect(limited[0]!.json).toMatchObject(TOO_MANY);
    expect(results.filter((r) => r.status === 200)).toHaveLength(20);
  });

  it('spot-record: the second request inside a second is 429; after the window it is served again', async () => {
    expect((await get(ctx.sim, PATHS.spot)).status).toBe(200);
    const second = await get(ctx.sim, PATHS.spot);
    expect(second.status).toBe(429);
    expect(second.json).toMatchObject(TOO_MANY);
    expect(second.text).not.toContain('retry');
    await new Promise((resolve) => setTimeout(resolve, 1_020));
    expect((await get(ctx.sim, PATHS.spot)).status).toBe(200);
  });

  it('different UIDs do not share a budget; a sub-account key spends its parent main account budget', async () => {
    const other = ctx.sim.createAccount({});
    const [a, b] = await Promise.all([get(ctx.sim, PATHS.spot), get(ctx.sim, PATHS.spot, {}, other)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect((await get(ctx.sim, PATHS.spot, {}, other)).status).toBe(429);
  });

  it('fund-net-flow is keyed by IP, whatever key is sent', async () => {
    const from1 = (credentials?: typeof ctx.sim.demo) =>
      call(ctx.sim.url, credentials, 'GET', PATHS.netFlow, { query: 'symbol=ETHUSDT', localAddress: '127.0.0.1' });
    expect((await from1()).status).toBe(200);
    expect((await from1(ctx.sim.createAccount({}))).status).toBe(429);
    const from2 = await call(ctx.sim.url, undefined, 'GET', PATHS.netFlow, {
      query: 'symbol=ETHUSDT',
      localAddress: '127.0.0.2',
    });
    expect(from2.status).toBe(200);
  });

  it('batch-cancel-order takes the stricter 5 per second', async () => {
    const body = JSON.stringify({ symbol: 'BTCUSDT', orderList: [{ orderId: '1' }] });
    const results = await Promise.all(
      Array.from({ length: 6 }, () => call(ctx.sim.url, ctx.sim.demo, 'POST', PATHS.batchCancel, { body })),
    );
    expect(results.filter((r) => r.status === 429)).toHaveLength(1);
  });

  it('a factor of 2 doubles the budget; disabled limits never answer 429', async () => {
    ctx.sim.rateLimits.configure({ enabled: true, factor: 2 });
    const doubled = await Promise.all(Array.from({ length: 3 }, () => get(ctx.sim, PATHS.spot)));
    expect(doubled.map((r) => r.status).sort()).toEqual([200, 200, 429]);
    ctx.sim.rateLimits.configure({ enabled: false });
    const free = await Promise.all(Array.from({ length: 5 }, () => get(ctx.sim, PATHS.spot)));
    expect(free.every((r) => r.status === 200)).toBe(true);
  });

  it('counts 429s per endpoint in the counters', async () => {
    ctx.sim.counters.reset();
    await Promise.all(Array.from({ length: 3 }, () => get(ctx.sim, PATHS.spot)));
    expect(ctx.sim.counters.get()[PATHS.spot]).toEqual({ requests: 3, served: 1, rateLimited: 2, errors: 0 });
  });
});

describe('limiter units', () => {
  it('sliding window admits `limit` per window and frees a slot exactly when the oldest leaves', () => {
    const limiter = new SlidingWindowLimiter(2, 1000);
    expect([limiter.tryTake('k', 0), limiter.tryTake('k', 500), limiter.tryTake('k', 999)]).toEqual([
      true,
      true,
      false,
    ]);
    expect(limiter.tryTake('k', 1000)).toBe(true);
    expect(limiter.tryTake('k', 1400)).toBe(false);
    expect(limiter.tryTake('other', 1400)).toBe(true);
  });

  it('6000 requests per IP per minute overall', () => {
    const limits = new RateLimits({ enabled: true });
    let admitted = 0;
    for (let i = 0; i < 6001; i++) if (limits.takeIp('10.0.0.1', i)) admitted++;
    expect(admitted).toBe(6000);
    expect(limits.takeIp('10.0.0.2', 6001)).toBe(true);
    expect(limits.takeIp('10.0.0.1', 60_001)).toBe(true);
  });
});
