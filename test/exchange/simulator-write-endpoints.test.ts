import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AmbiguousResultError, ExchangeRequestError } from '../../src/exchange/errors/exchange-error.ts';
import { ExchangeClient } from '../../src/exchange/exchange-client.ts';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import { spotRecord } from '../../src/streams/spot/pager.ts';
import { useTestRedis } from '../helpers/test-redis.ts';
import { simulatorClient } from './helpers/simulator-client.ts';

const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);
// Read testRedis.prefix inside each test: it changes per test.
const testRedis = useTestRedis('exchange-sim-write');
const { redis } = testRedis;
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ seed: 13, scale: 'tiny', now: NOW, rateLimits: { enabled: true, factor: 10 } });
});
afterAll(async () => {
  await sim.close();
});

describe('state-changing endpoints against the simulator', () => {
  it('creates a sub-account, gives it a key that then signs its own requests, and modifies the key', async () => {
    const client = simulatorClient(sim, redis, testRedis.prefix, { factor: 10 });
    const sub = await client.createSub({ username: 'ledgerline', note: 'Büro Köln, 日本 ✓', accountMode: 'unified' });
    expect(sub).toMatchObject({ status: 'normal', note: 'Büro Köln, 日本 ✓', createdTime: String(NOW) });
    expect(sim.state().subAccounts.map((s) => s.uid)).toContain(sub.subUid);

    const key = await client.createVirtualSubaccountApiKey({
      subAccountUid: sub.subUid,
      passphrase: 'Reader2026',
      label: 'Prüfung 日本',
      ipList: ['127.0.0.1', '::1'],
      permList: ['read'],
    });
    expect(key).toMatchObject({ subAccountUid: sub.subUid, label: 'Prüfung 日本', permList: ['read'] });
    expect(key.secretKey.length).toBeGreaterThan(10);

    // The new key authenticates: a sub-account has no records, but the call is answered.
    const subClient = new ExchangeClient({
      baseUrl: sim.url,
      apiKey: key.subAccountApiKey,
      secretKey: key.secretKey,
      passphrase: 'Reader2026',
      uid: sim.demo.uid,
      redis,
      clock: () => sim.clock.now(),
      rateBudget: { prefix: testRedis.prefix, ipKey: 'test-host' },
    });
    expect(await spotRecord(subClient, { limit: 5 })).toEqual([]);
    await subClient.close();

    const modified = await client.modifyVirtualSubaccountApiKey({
      subAccountUid: sub.subUid,
      subAccountApiKey: key.subAccountApiKey,
      passphrase: 'Reader2026',
      label: 'geändert ✓',
      ipList: ['127.0.0.1'],
      permList: ['read', 'spot_trade'],
    });
    expect(modified).toMatchObject({ label: 'geändert ✓', permList: ['read', 'spot_trade'], ipList: ['127.0.0.1'] });
    await client.close();
  });

  it('batch-creates sub-accounts with keys, all or nothing', async () => {
    const client = simulatorClient(sim, redis, testRedis.prefix, { factor: 10 });
    const created = await client.batchCreateSubaccountAndApiKey([
      { subAccountName: 'Ledgerab', passphrase: 'abc12345', label: 'eins', permList: ['read'] },
      { subAccountName: 'Ledgerac', passphrase: 'abc12345', label: 'zwei', permList: ['spot_trade'], ipList: ['::1'] },
    ]);
    expect(created.map((item) => [item.subAccountName, item.label, item.permList])).toEqual([
      ['Ledgerab', 'eins', ['read']],
      ['Ledgerac', 'zwei', ['spot_trade']],
    ]);
    // A name taken on the exchange is the exchange's refusal (40060), final, not retried.
    sim.requestLog.clear();
    const taken = await client
      .batchCreateSubaccountAndApiKey([
        { subAccountName: 'ledgerab', passphrase: 'abc12345', label: 'x', permList: [] },
      ])
      .catch((error: unknown) => error);
    expect(taken).toBeInstanceOf(ExchangeRequestError);
    expect(taken).toMatchObject({ code: '40060', httpStatus: 400, endpoint: 'batchCreateSubaccountAndApiKey' });
    expect(sim.requestLog.list()).toHaveLength(1);
    await client.close();
  });

  it('cancels all orders of a category, reporting orders that could not be cancelled', async () => {
    const client = simulatorClient(sim, redis, testRedis.prefix, { factor: 10 });
    sim.placeOrders([{ category: 'USDT-FUTURES', symbol: 'BTCUSDT', orderId: 'stuck-1', stuck: true }]);
    const open = sim.state().openOrders.filter((order) => order.category === 'USDT-FUTURES');
    expect(open.length).toBeGreaterThan(1);
    const result = await client.cancelSymbolOrder({ category: 'USDT-FUTURES' });
    expect(result.list.map((item) => item.orderId).sort()).toEqual(open.map((order) => order.orderId).sort());
    expect(result.list.find((item) => item.orderId === 'stuck-1')).toMatchObject({ code: '24056', msg: 'notExisted' });
    expect(result.list.filter((item) => item.code === null)).toHaveLength(open.length - 1);
    expect(
      sim
        .state()
        .openOrders.filter((o) => o.category === 'USDT-FUTURES')
        .map((o) => o.orderId),
    ).toEqual(['stuck-1']);
    await client.close();
  });

  it('batch-cancels spot orders by orderId, and by clientOid', async () => {
    const client = simulatorClient(sim, redis, testRedis.prefix, { factor: 10 });
    sim.placeOrders([
      { category: 'SPOT', symbol: 'ETHUSDT', orderId: 'o-1', clientOid: 'c-1' },
      { category: 'SPOT', symbol: 'ETHUSDT', orderId: 'o-2', clientOid: 'c-2' },
      { category: 'SPOT', symbol: 'ETHUSDT', orderId: 'o-3', clientOid: 'c-3' },
    ]);
    const byId = await client.batchCancelOrder({
      symbol: 'ETHUSDT',
      orderList: [{ orderId: 'o-1' }, { orderId: 'o-9' }],
    });
    expect(byId.successList).toEqual([{ orderId: 'o-1', clientOid: 'c-1' }]);
    expect(byId.failureList).toEqual([
      { orderId: 'o-9', clientOid: null, errorCode: '43001', errorMsg: 'The order does not exist' },
    ]);
    const byClientOid = await client.batchCancelOrder({
      batchMode: 'multiple',
      orderList: [
        { symbol: 'ETHUSDT', clientOid: 'c-2' },
        { symbol: 'ETHUSDT', clientOid: 'c-3' },
      ],
    });
    expect(byClientOid.successList.map((item) => item.orderId)).toEqual(['o-2', 'o-3']);
    await client.close();
  });

  it('gives an AmbiguousResultError, after one request only, when a POST took effect but its answer was lost', async () => {
    const client = simulatorClient(sim, redis, testRedis.prefix, { factor: 10 });
    sim.faults.set({ applyThenReset: { path: '/api/v3/user/create-sub', count: 1 } });
    sim.requestLog.clear();
    const error = await client.createSub({ username: 'lostanswer' }).catch((caught: unknown) => caught);
    sim.faults.clear();
    await client.close();
    expect(error).toBeInstanceOf(AmbiguousResultError);
    expect(error).toMatchObject({ endpoint: 'createSub', retryable: false });
    expect(sim.requestLog.list()).toHaveLength(1);
    // It did happen: the caller has to look before repeating.
    expect(sim.state().subAccounts.some((s) => s.email.startsWith('lostanswer'))).toBe(true);
  });
});
