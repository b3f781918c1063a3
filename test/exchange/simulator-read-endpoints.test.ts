import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ExchangeAuthError, ExchangeRequestError } from '../../src/exchange/errors/exchange-error.ts';
import type { ExchangeClient } from '../../src/exchange/exchange-client.ts';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import { historyPosition } from '../../src/streams/positions/pager.ts';
import { spotRecord } from '../../src/streams/spot/pager.ts';
import { allSubDepositWithdrawal } from '../../src/streams/transfers/pager.ts';
import { useTestRedis } from '../helpers/test-redis.ts';
import { simulatorClient } from './helpers/simulator-client.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);
// Read testRedis.prefix inside each test: it changes per test.
const testRedis = useTestRedis('exchange-sim-read');
const { redis } = testRedis;
let sim: RunningSimulator;
let client: ExchangeClient;

beforeAll(async () => {
  sim = await startSimulator({ seed: 7, scale: 'tiny', now: NOW, rateLimits: { enabled: true, factor: 10 } });
});
afterAll(async () => {
  await sim.close();
});

function freshClient(overrides: Parameters<typeof simulatorClient>[3] = {}): ExchangeClient {
  client = simulatorClient(sim, redis, testRedis.prefix, { factor: 10, ...overrides });
  return client;
}

describe('read endpoints against the simulator', () => {
  afterAll(async () => {
    await client?.close();
  });

  it('historyPosition: the newest page equals the ground truth, normalized to cTime/uTime', async () => {
    const page = await historyPosition(freshClient(), { productType: 'USDT-FUTURES', limit: 5 });
    const truth = sim
      .truth('positions')
      .filter((p) => ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'DOGEUSDT'].includes(p.symbol!))
      .slice(0, 5);
    expect(page.list.map((p) => p.positionId)).toEqual(truth.map((p) => p.positionId));
    const { ctime, utime, ...rest } = truth[0]! as (typeof truth)[number] & { ctime: string; utime: string };
    expect(page.list[0]).toEqual({ ...rest, cTime: ctime, uTime: utime, raw: truth[0] });
    expect(page.endId).toBe(truth[4]!.positionId);
  });

  it('historyPosition: the camel spelling gives the same normalized records', async () => {
    const lower = await historyPosition(freshClient(), { limit: 3 });
    sim.setTimestampSpelling('camel');
    try {
      const camel = await historyPosition(client, { limit: 3 });
      const normalized = (page: typeof lower) => page.list.map(({ raw: _raw, ...item }) => item);
      expect(normalized(camel)).toEqual(normalized(lower));
      expect(camel.endId).toBe(lower.endId);
      expect(camel.list[0]!.raw).toHaveProperty('cTime');
      expect(lower.list[0]!.raw).toHaveProperty('ctime');
    } finally {
      sim.setTimestampSpelling('lower');
    }
  });

  it('spotRecord: amounts stay the exact strings of the truth', async () => {
    const records = await spotRecord(freshClient(), { limit: 20 });
    expect(records).toEqual(
      sim
        .truth('spot')
        .slice(0, 20)
        .map((r) => ({ ...r, raw: r })),
    );
    expect(records.every((r) => typeof r.amount === 'string' && typeof r.balance === 'string')).toBe(true);
  });

  it('allSubDepositWithdrawal: a 7-day window, cursor read from endId', async () => {
    const page = await allSubDepositWithdrawal(freshClient(), {
      startTime: NOW - 7 * DAY,
      endTime: NOW - 1,
      limit: 10,
    });
    const truth = sim
      .truth('transfers')
      .filter((t) => Number(t.ts) >= NOW - 7 * DAY && Number(t.ts) <= NOW - 1)
      .slice(0, 10);
    expect(page.list).toEqual(truth.map((t) => ({ ...t, raw: t })));
    expect(page.cursor).toBe(truth.at(-1)!.txId);
  });

  it('fundNetFlow: 24 hourly points without authentication', async () => {
    const points = await freshClient({ apiKey: 'not-a-key' }).fundNetFlow({ symbol: 'BTCUSDT' });
    expect(points).toHaveLength(24);
    expect(Number(points[23]!.ts)).toBeGreaterThan(Number(points[0]!.ts));
    expect(sim.requestLog.list(1)[0]).toMatchObject({ path: '/api/v2/spot/market/fund-net-flow', key: null });
  });

  it('openInterestLimit: one symbol and category', async () => {
    const limit = await freshClient().openInterestLimit({ symbol: 'BTCUSDT', category: 'USDT-FUTURES' });
    expect(limit.symbol).toBe('BTCUSDT');
    expect(limit.singleUserLimit).toMatch(/^\d+(\.\d+)?$/);
  });

  it('maps the exchange refusals to their classes and does not repeat them', async () => {
    sim.requestLog.clear();
    await expect(spotRecord(freshClient({ secretKey: 'wrong' }), { limit: 1 })).rejects.toBeInstanceOf(
      ExchangeAuthError,
    );
    await expect(freshClient().openInterestLimit({ symbol: 'NOPE', category: 'USDT-FUTURES' })).rejects.toBeInstanceOf(
      ExchangeRequestError,
    );
    // Refusals are final: one request each, no retry.
    expect(sim.requestLog.list().map((entry) => entry.code)).toEqual(['40009', '40020']);
  });
});
