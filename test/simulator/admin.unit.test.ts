import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

import { describe, expect, it } from 'vitest';

import { startSimulator } from '../../src/simulator/index.ts';
import { STREAMS } from '../../src/streams/registry.ts';
import { DAY, get, NOW, PATHS, post, useSimulator } from './support/fixture.ts';
import { send, signRequest } from './support/signer.ts';

const ctx = useSimulator();

async function admin<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; data: T }> {
  const res = await send(
    `${ctx.sim.url}${path}`,
    method,
    { 'content-type': 'application/json' },
    body === undefined ? '' : JSON.stringify(body),
  );
  return { status: res.status, data: JSON.parse(res.text) as T };
}

function signedHeaders(): Record<string, string> {
  const timestamp = String(Date.now());
  return {
    'access-key': ctx.sim.demo.apiKey,
    'access-sign': signRequest(ctx.sim.demo.secretKey, `${timestamp}GET${PATHS.spot}`),
    'access-passphrase': ctx.sim.demo.passphrase,
    'access-timestamp': timestamp,
  };
}

async function statuses(n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    try {
      out.push((await send(`${ctx.sim.url}${PATHS.netFlow}?symbol=BTCUSDT`, 'GET', {}, '')).status);
    } catch {
      out.push(0);
    }
  }
  return out;
}

describe('/__sim admin API', () => {
  it('reads, sets and advances the clock', async () => {
    expect((await admin('GET', '/__sim/clock')).data).toEqual({ now: NOW, frozen: true });
    expect((await admin('POST', '/__sim/clock', { advanceMs: DAY })).data).toEqual({ now: NOW + DAY, frozen: true });
    expect((await admin('POST', '/__sim/clock', { now: NOW })).data).toEqual({ now: NOW, frozen: true });
    expect((await admin('POST', '/__sim/clock', { advanceMs: 'soon' })).status).toBe(400);
  });

  it('injects HTTP 500 / 40015, 429 bursts, truncated bodies and resets, only on the listed paths', async () => {
    ctx.sim.rateLimits.configure({ enabled: false });
    await admin('POST', '/__sim/faults', { http500: 1, paths: [PATHS.netFlow] });
    const failed = await get(ctx.sim, PATHS.netFlow, { symbol: 'BTCUSDT' });
    expect([failed.status, failed.json.code]).toEqual([500, '40015']);
    expect((await get(ctx.sim, PATHS.spot)).status).toBe(200);
    await admin('POST', '/__sim/faults', { burst429: 1 });
    expect((await get(ctx.sim, PATHS.spot)).json.code).toBe('429');
    await admin('POST', '/__sim/faults', { truncate: 1 });
    const cut = await send(`${ctx.sim.url}${PATHS.netFlow}?symbol=BTCUSDT`, 'GET', {}, '');
    expect(() => JSON.parse(cut.text) as unknown).toThrow();
    const cutPage = await send(`${ctx.sim.url}${PATHS.spot}`, 'GET', signedHeaders(), '');
    expect(cutPage.text.length).toBeGreaterThan(20);
    expect(() => JSON.parse(cutPage.text) as unknown).toThrow();
    await admin('POST', '/__sim/faults', { reset: 1 });
    await expect(send(`${ctx.sim.url}${PATHS.netFlow}?symbol=BTCUSDT`, 'GET', {}, '')).rejects.toThrow();
    await admin('DELETE', '/__sim/faults');
    expect((await get(ctx.sim, PATHS.netFlow, { symbol: 'BTCUSDT' })).status).toBe(200);
  });

  it('draws faults reproducibly from their seed', async () => {
    await admin('POST', '/__sim/faults', { http500: 0.3, reset: 0.2, seed: 7 });
    const first = await statuses(30);
    await admin('POST', '/__sim/faults', { http500: 0.3, reset: 0.2, seed: 7 });
    const second = await statuses(30);
    await admin('DELETE', '/__sim/faults');
    expect(second).toEqual(first);
    expect(new Set(first)).toEqual(new Set([0, 200, 500]));
  });

  it('adds latency', async () => {
    ctx.sim.faults.set({ latencyMs: 120 });
    const started = Date.now();
    await get(ctx.sim, PATHS.netFlow, { symbol: 'BTCUSDT' });
    ctx.sim.faults.clear();
    expect(Date.now() - started).toBeGreaterThanOrEqual(115);
  });

  it('acts on requests whose caller left during the injected latency, as the exchange would: no 40018', async () => {
    const main = ctx.sim.createAccount({ unifiedManagement: true });
    ctx.sim.requestLog.clear();
    ctx.sim.faults.set({ latencyMs: 300, paths: [PATHS.createSub, PATHS.spot] });
    /** Sends a signed request and leaves before the answer, as a client that timed out does. */
    const sendAndLeave = async (method: 'GET' | 'POST', path: string, body: string) => {
      const timestamp = String(Date.now());
      const request = http.request(`${ctx.sim.url}${path}`, {
        method,
        headers: {
          'content-type': 'application/json',
          'access-key': main.apiKey,
          'access-sign': signRequest(main.secretKey, `${timestamp}${method}${path}${body}`),
          'access-passphrase': main.passphrase,
          'access-timestamp': timestamp,
        },
      });
      request.on('error', () => undefined);
      request.end(body);
      await sleep(100);
      request.destroy();
    };
    try {
      await sendAndLeave('GET', PATHS.spot, '');
      await sendAndLeave('POST', PATHS.createSub, JSON.stringify({ username: 'leftearly' }));
      await sleep(500);
      // A request that reached the exchange may have been acted on (docs/exchange-api.md §3.4): here both were.
      const logged = ctx.sim.requestLog.list().filter((r) => r.path === PATHS.spot || r.path === PATHS.createSub);
      expect(logged.map((r) => [r.path, r.status, r.code]).sort()).toEqual(
        [
          [PATHS.spot, 200, '00000'],
          [PATHS.createSub, 200, '00000'],
        ].sort(),
      );
      expect(ctx.sim.state(main.uid).subAccounts.map((s) => s.name)).toEqual(['leftearly']);
    } finally {
      ctx.sim.faults.clear();
    }
  });

  it('applyThenReset applies a POST, then hangs up without answering, once per count', async () => {
    const main = ctx.sim.createAccount({ unifiedManagement: true });
    await admin('POST', '/__sim/faults', { applyThenReset: { path: PATHS.createSub, count: 1 } });
    await expect(post(ctx.sim, PATHS.createSub, { username: 'ambiguous' }, main)).rejects.toThrow();
    expect(ctx.sim.state(main.uid).subAccounts.map((s) => s.name)).toEqual(['ambiguous']);
    const retry = await post(ctx.sim, PATHS.createSub, { username: 'ambiguous' }, main);
    expect(retry.json.code).toBe('40060');
  });

  it('counts per endpoint and logs requests', async () => {
    await admin('POST', '/__sim/counters/reset');
    await admin('DELETE', '/__sim/requests');
    await get(ctx.sim, PATHS.spot);
    await get(ctx.sim, PATHS.spot, { limit: 9999 });
    const counters = await admin<Record<string, unknown>>('GET', '/__sim/counters');
    expect(counters.data[PATHS.spot]).toEqual({ requests: 2, served: 1, rateLimited: 0, errors: 1 });
    const log = await admin<{ path: string; query: string; status: number; code: string; key: string }[]>(
      'GET',
      '/__sim/requests',
    );
    expect(log.data.map((e) => [e.path, e.query, e.status, e.code, e.key])).toEqual([
      [PATHS.spot, '', 200, '00000', ctx.sim.demo.apiKey],
      [PATHS.spot, 'limit=9999', 400, '40020', ctx.sim.demo.apiKey],
    ]);
  });

  it('serves the ground truth of each stream as in-process truth does', async () => {
    // Every stream of the registry (the simulator serves the truth of each).
    for (const stream of STREAMS) {
      const res = await admin<unknown[]>('GET', `/__sim/truth/${stream}?uid=${ctx.sim.demo.uid}`);
      expect(res.data).toEqual(ctx.sim.truth(stream));
    }
    const balances = await admin<unknown[]>('GET', `/__sim/futures-balances?uid=${ctx.sim.demo.uid}`);
    expect(balances.data).toEqual(ctx.sim.futuresBalances());
    const sub = ctx.sim.state().brokerSubUids[0]!;
    const one = await admin<{ uid: string }[]>('GET', `/__sim/truth/transfers?uid=${sub}`);
    expect(one.data.length).toBeGreaterThan(0);
    expect(one.data.every((r) => r.uid === sub)).toBe(true);
    expect((await admin('GET', '/__sim/truth/trades')).status).toBe(400);
  });

  it('creates accounts with chosen capabilities, shows state without secrets, places orders', async () => {
    const created = await admin<{ uid: string; apiKey: string; secretKey: string; passphrase: string }>(
      'POST',
      '/__sim/accounts',
      {
        broker: false,
        uta: true,
        permList: ['read'],
        ipList: ['127.0.0.1'],
        withData: true,
      },
    );
    expect(created.status).toBe(200);
    const spot = await get<unknown[]>(ctx.sim, PATHS.spot, {}, created.data);
    expect(spot.json.data.length).toBeGreaterThan(0);
    expect(spot.json.data).not.toEqual((await get<unknown[]>(ctx.sim, PATHS.spot)).json.data);
    await admin('POST', '/__sim/orders', [
      { uid: created.data.uid, category: 'SPOT', symbol: 'BTCUSDT', orderId: '77', clientOid: 'my-77' },
    ]);
    const state = await admin<{ broker: boolean; keys: Record<string, unknown>[]; openOrders: { orderId: string }[] }>(
      'GET',
      `/__sim/state?uid=${created.data.uid}`,
    );
    expect(state.data.broker).toBe(false);
    expect(state.data.keys[0]).not.toHaveProperty('secretKey');
    expect(state.data.openOrders.map((o) => o.orderId)).toEqual(['77']);
    expect((await admin('POST', '/__sim/accounts', { permList: ['withdraw'] })).status).toBe(400);
    expect((await admin('POST', '/__sim/orders', [{ category: 'SPOT', symbol: 'NOPE' }])).status).toBe(400);
  });

  it('is absent (404 / 40404) when admin is off', async () => {
    const closed = await startSimulator({ scale: 'tiny', admin: false });
    try {
      const res = await send(`${closed.url}/__sim/clock`, 'GET', {}, '');
      expect([res.status, (JSON.parse(res.text) as { code: string }).code]).toEqual([404, '40404']);
    } finally {
      await closed.close();
    }
  });
});

describe('determinism', () => {
  it('the same seed gives the same credentials and data; another seed does not', async () => {
    const a = await startSimulator({ scale: 'tiny', seed: 9, now: NOW });
    const b = await startSimulator({ scale: 'tiny', seed: 9, now: NOW });
    const c = await startSimulator({ scale: 'tiny', seed: 10, now: NOW });
    try {
      expect(b.demo).toEqual(a.demo);
      expect(b.truth('spot')).toEqual(a.truth('spot'));
      expect(b.truth('transfers')).toEqual(a.truth('transfers'));
      expect(c.demo.apiKey).not.toBe(a.demo.apiKey);
      expect(c.truth('spot')).not.toEqual(a.truth('spot'));
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });
});
