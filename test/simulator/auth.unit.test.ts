import { describe, expect, it } from 'vitest';

import { get, NOW, outcome, PATHS, post, useSimulator } from './support/fixture.ts';
import { call, sortedQuery } from './support/signer.ts';

const ctx = useSimulator();

describe('authentication (docs/exchange-api.md §2, §3)', () => {
  it('accepts a request signed over the query as sent', async () => {
    const res = await get(ctx.sim, PATHS.spot, { coin: 'BTC', limit: 3 });
    expect(outcome(res)).toEqual({ status: 200, code: '00000', msg: 'success' });
  });

  it('accepts a signature over the percent-decoded query', async () => {
    const res = await call(ctx.sim.url, ctx.sim.demo, 'GET', PATHS.spot, {
      query: 'coin=%42TC&limit=3',
      signQuery: 'coin=BTC&limit=3',
    });
    expect(res.status).toBe(200);
  });

  it('rejects a tampered query with 40009', async () => {
    const res = await call(ctx.sim.url, ctx.sim.demo, 'GET', PATHS.spot, { query: 'limit=4', signQuery: 'limit=3' });
    expect(outcome(res)).toEqual({ status: 400, code: '40009', msg: 'sign signature error' });
    expect(res.json.data).toBeNull();
  });

  it('rejects a reordered query (signed sorted, sent in another order) with 40009', async () => {
    const res = await call(ctx.sim.url, ctx.sim.demo, 'GET', PATHS.spot, {
      query: 'limit=3&coin=BTC',
      signQuery: 'coin=BTC&limit=3',
    });
    expect(outcome(res)).toEqual({ status: 400, code: '40009', msg: 'sign signature error' });
  });

  it('verifies the raw body bytes: a re-serialized equal body still fails', async () => {
    const sent = '{"username":"tamperedone"}';
    const res = await call(ctx.sim.url, ctx.sim.demo, 'POST', PATHS.createSub, {
      body: sent,
      signBody: '{ "username": "tamperedone" }',
    });
    expect(outcome(res)).toEqual({ status: 400, code: '40009', msg: 'sign signature error' });
    const tampered = await call(ctx.sim.url, ctx.sim.demo, 'POST', PATHS.createSub, {
      body: '{"username":"tamperedtwo"}',
      signBody: sent,
    });
    expect(tampered.json.code).toBe('40009');
  });

  it('rejects a timestamp more than 30 s off with 40008 and accepts one 20 s off', async () => {
    const stale = await get(ctx.sim, PATHS.spot, {}, ctx.sim.demo, { timestamp: Date.now() - 31_000 });
    expect(outcome(stale)).toEqual({ status: 400, code: '40008', msg: 'Request timestamp expired' });
    const fine = await get(ctx.sim, PATHS.spot, {}, ctx.sim.demo, { timestamp: Date.now() - 20_000 });
    expect(fine.status).toBe(200);
  });

  it('accepts a timestamp taken from the simulated clock (a client synced to requestTime)', async () => {
    const res = await get(ctx.sim, PATHS.spot, {}, ctx.sim.demo, { timestamp: NOW + 1_000 });
    expect(res.status).toBe(200);
    expect(res.json.requestTime).toBe(NOW);
  });

  it('rejects a wrong passphrase with 40012', async () => {
    const res = await get(ctx.sim, PATHS.spot, {}, { ...ctx.sim.demo, passphrase: 'wrong1234' });
    expect(outcome(res)).toEqual({ status: 400, code: '40012', msg: 'apikey/password is incorrect' });
  });

  it('rejects an unknown key with 40006', async () => {
    const res = await get(ctx.sim, PATHS.spot, {}, { ...ctx.sim.demo, apiKey: 'bg_unknown' });
    expect(outcome(res)).toEqual({ status: 400, code: '40006', msg: 'Invalid ACCESS_KEY' });
  });

  it('rejects a wrong secret with 40009', async () => {
    const res = await get(ctx.sim, PATHS.spot, {}, { ...ctx.sim.demo, secretKey: 'f'.repeat(64) });
    expect(res.json.code).toBe('40009');
  });

  it.each([
    ['access-key', '40001', 'ACCESS_KEY cannot be empty'],
    ['access-sign', '40002', 'ACCESS_SIGN cannot be empty'],
    ['access-passphrase', '40011', 'ACCESS_PASSPHRASE cannot be empty'],
    ['access-timestamp', '40005', 'Invalid ACCESS_TIMESTAMP'],
  ])('a request without %s is %s', async (header, code, msg) => {
    const res = await get(ctx.sim, PATHS.spot, {}, ctx.sim.demo, { headers: { [header]: undefined } });
    expect(outcome(res)).toEqual({ status: 400, code, msg });
  });

  it('rejects a non-numeric timestamp with 40005', async () => {
    const res = await get(ctx.sim, PATHS.spot, {}, ctx.sim.demo, { headers: { 'access-timestamp': 'yesterday' } });
    expect(res.json.code).toBe('40005');
  });

  it('rejects a caller whose IP is not in the key whitelist with 40018', async () => {
    const foreign = ctx.sim.createAccount({ ipList: ['10.1.2.3'] });
    const res = await get(ctx.sim, PATHS.spot, {}, foreign);
    expect(outcome(res)).toEqual({ status: 400, code: '40018', msg: 'Invalid IP' });
  });

  it('admits a caller from ::ffff:127.0.0.1 and 127.0.0.1 alike', async () => {
    const v4only = ctx.sim.createAccount({ ipList: ['127.0.0.1'] });
    expect((await get(ctx.sim, PATHS.spot, {}, v4only)).status).toBe(200);
  });

  it('rejects a key lacking the permission with 40014', async () => {
    const tradeOnly = ctx.sim.createAccount({ permList: ['spot_trade'] });
    const res = await get(ctx.sim, PATHS.spot, {}, tradeOnly);
    expect(outcome(res)).toEqual({ status: 400, code: '40014', msg: 'Incorrect permissions, need read permissions' });
  });

  it('rejects a non-broker on the broker endpoint with 40029', async () => {
    const plain = ctx.sim.createAccount({ broker: false });
    const res = await get(ctx.sim, PATHS.transfers, {}, plain);
    expect(outcome(res)).toEqual({
      status: 400,
      code: '40029',
      msg: 'This account is not a Broker, please apply to become a Broker first',
    });
  });

  it('lets fund-net-flow through without any auth header', async () => {
    const res = await call(ctx.sim.url, undefined, 'GET', PATHS.netFlow, { query: sortedQuery({ symbol: 'BTCUSDT' }) });
    expect(res.status).toBe(200);
  });

  it('answers an unknown path with 404 / 40404', async () => {
    const res = await post(ctx.sim, '/api/v2/user/no-such-endpoint', {});
    expect(outcome(res)).toEqual({ status: 404, code: '40404', msg: 'Request URL NOT FOUND' });
  });
});
