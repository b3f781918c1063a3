import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildQueryString } from '../../src/exchange/signer.ts';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import { historyPosition } from '../../src/streams/positions/pager.ts';
import { spotRecord } from '../../src/streams/spot/pager.ts';
import { useTestRedis } from '../helpers/test-redis.ts';
import { simulatorClient } from './helpers/simulator-client.ts';

const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);
// Read testRedis.prefix inside each test: it changes per test.
const testRedis = useTestRedis('exchange-sim-signing');
const { redis } = testRedis;
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ seed: 5, scale: 'tiny', now: NOW, rateLimits: { enabled: false } });
});
afterAll(async () => {
  await sim.close();
});

describe('signatures verify on the simulator', () => {
  it('for query values that need percent-encoding', async () => {
    const client = simulatorClient(sim, redis, testRedis.prefix, { rateBudget: { perSecond: { spotRecord: 50 } } });
    sim.requestLog.clear();
    const awkward = ['BTC USDT', 'a/b?c=d&e', 'é日本✓', '100%+1', "it's (ok)*~!"];
    for (const symbol of awkward) {
      const page = await historyPosition(client, { symbol, limit: 1 });
      expect(page.list).toEqual([]); // no such symbol, but authenticated and answered
      const records = await spotRecord(client, { coin: symbol, limit: 1 });
      expect(records).toEqual([]);
    }
    await client.close();
    const log = sim.requestLog.list();
    expect(log.map((entry) => entry.status)).toEqual(Array(awkward.length * 2).fill(200));
    // The query went out percent-encoded, keys sorted, exactly as signed.
    expect(log[0]!.query).toBe(buildQueryString({ symbol: awkward[0], limit: '1' }));
    expect(log[0]!.query).toBe('limit=1&symbol=BTC%20USDT');
    expect(log.some((entry) => entry.query.includes('%C3%A9%E6%97%A5'))).toBe(true);
  });

  it('for POST bodies with non-ASCII text', async () => {
    const client = simulatorClient(sim, redis, testRedis.prefix);
    sim.requestLog.clear();
    const note = 'Büro Köln · 日本語 · 한국어 · ✓ 🚀';
    const sub = await client.createSub({ username: 'unicode', note });
    expect(sub.note).toBe(note);
    const key = await client.createVirtualSubaccountApiKey({
      subAccountUid: sub.subUid,
      passphrase: 'Unicode2026',
      label: 'clé 日本 ✓',
      permList: ['read'],
    });
    expect(key.label).toBe('clé 日本 ✓');
    const renamed = await client.batchCreateSubaccountAndApiKey([
      { subAccountName: 'Unicodeb', passphrase: 'Unicode2026', label: 'Ünïcödé ✓', permList: ['read'] },
    ]);
    expect(renamed[0]!.label).toBe('Ünïcödé ✓');
    await client.close();
    expect(sim.requestLog.list().map((entry) => entry.code)).toEqual(['00000', '00000', '00000']);
  });
});
