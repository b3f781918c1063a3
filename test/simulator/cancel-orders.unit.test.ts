import { describe, expect, it } from 'vitest';

import { outcome, PATHS, post, useSimulator } from './support/fixture.ts';

const ctx = useSimulator();

interface CancelAll {
  list: { orderId: string; clientOid: string; code?: string; msg?: string }[];
}
interface BatchResult {
  successList: { orderId: string; clientOid: string }[];
  failureList: { orderId: string; clientOid: string; errorMsg: string; errorCode: string }[];
}

let n = 0;
const nextId = () => String(9_000_000_000 + ++n);

function place(
  owner: string,
  specs: { category?: string; symbol?: string; orderId?: string; clientOid?: string; stuck?: boolean }[],
) {
  return ctx.sim.placeOrders(
    specs.map((spec) => ({
      uid: owner,
      category: (spec.category ?? 'SPOT') as 'SPOT',
      symbol: spec.symbol ?? 'BTCUSDT',
      orderId: spec.orderId ?? nextId(),
      clientOid: spec.clientOid ?? `c-${nextId()}`,
      ...(spec.stuck ? { stuck: true } : {}),
    })),
  );
}

describe('cancel-symbol-order', () => {
  it('cancels the open and partially filled orders of a category and symbol', async () => {
    const before = ctx.sim.state().openOrders.filter((o) => o.category === 'SPOT' && o.symbol === 'BTCUSDT');
    expect(before.map((o) => o.status).sort()).toEqual(['live', 'partially_filled']);
    const res = await post<CancelAll>(ctx.sim, PATHS.cancelSymbol, { category: 'SPOT', symbol: 'BTCUSDT' });
    expect(outcome(res)).toEqual({ status: 200, code: '00000', msg: 'success' });
    expect(res.json.data.list).toEqual(before.map((o) => ({ orderId: o.orderId, clientOid: o.clientOid })));
    const after = ctx.sim.state().openOrders;
    expect(after.some((o) => o.category === 'SPOT' && o.symbol === 'BTCUSDT')).toBe(false);
    expect(after.some((o) => o.category === 'SPOT' && o.symbol === 'ETHUSDT')).toBe(true);
  });

  it('cancels a whole category when symbol is absent, in every category', async () => {
    for (const category of ['MARGIN', 'USDT-FUTURES', 'COIN-FUTURES', 'USDC-FUTURES']) {
      const res = await post<CancelAll>(ctx.sim, PATHS.cancelSymbol, { category });
      expect(res.json.data.list.length).toBe(4);
      expect(ctx.sim.state().openOrders.some((o) => o.category === category)).toBe(false);
    }
  });

  it('reports an order it cannot cancel with code 24056 / notExisted, and leaves it open', async () => {
    const [stuck] = place(ctx.sim.demo.uid, [{ symbol: 'SOLUSDT', stuck: true }]);
    const res = await post<CancelAll>(ctx.sim, PATHS.cancelSymbol, { category: 'SPOT', symbol: 'SOLUSDT' });
    expect(res.json.data.list).toEqual([
      { orderId: stuck!.orderId, clientOid: stuck!.clientOid, code: '24056', msg: 'notExisted' },
    ]);
    expect(ctx.sim.state().openOrders.some((o) => o.orderId === stuck!.orderId)).toBe(true);
  });

  it.each([
    [{}, '40019', 'Parameter category cannot be empty'],
    [{ category: 'OPTIONS' }, '40020', 'Parameter category error'],
  ])('rejects %j with %s', async (body, code, msg) => {
    expect(outcome(await post(ctx.sim, PATHS.cancelSymbol, body))).toEqual({ status: 400, code, msg });
  });

  it('needs a unified trading account (40014)', async () => {
    const res = await post(ctx.sim, PATHS.cancelSymbol, { category: 'SPOT' }, ctx.sim.createAccount({ uta: false }));
    expect(outcome(res)).toEqual({
      status: 400,
      code: '40014',
      msg: 'Incorrect permissions, need UTA trade permissions',
    });
  });

  it("needs the category's trade permission on the key (40014)", async () => {
    const spotOnly = ctx.sim.createAccount({ uta: true, permList: ['read', 'spot_trade'] });
    const res = await post(ctx.sim, PATHS.cancelSymbol, { category: 'USDT-FUTURES' }, spotOnly);
    expect(res.json.msg).toBe('Incorrect permissions, need contract_trade permissions');
    expect((await post(ctx.sim, PATHS.cancelSymbol, { category: 'SPOT' }, spotOnly)).status).toBe(200);
  });
});

describe('batch-cancel-order', () => {
  it('cancels by orderId and by clientOid', async () => {
    const [a, b] = place(ctx.sim.demo.uid, [{}, {}]);
    const byId = await post<BatchResult>(ctx.sim, PATHS.batchCancel, {
      symbol: 'BTCUSDT',
      orderList: [{ orderId: a!.orderId }],
    });
    expect(byId.json.data).toEqual({
      successList: [{ orderId: a!.orderId, clientOid: a!.clientOid }],
      failureList: [],
    });
    const byOid = await post<BatchResult>(ctx.sim, PATHS.batchCancel, {
      symbol: 'BTCUSDT',
      batchMode: 'single',
      orderList: [{ clientOid: b!.clientOid }],
    });
    expect(byOid.json.data.successList).toEqual([{ orderId: b!.orderId, clientOid: b!.clientOid }]);
  });

  it('a batch mixing orderId items with clientOid-only items fails the clientOid-only ones with 43001', async () => {
    const [a, b, c] = place(ctx.sim.demo.uid, [{}, {}, {}]);
    const res = await post<BatchResult>(ctx.sim, PATHS.batchCancel, {
      symbol: 'BTCUSDT',
      orderList: [
        { orderId: a!.orderId },
        { clientOid: b!.clientOid },
        { orderId: c!.orderId, clientOid: c!.clientOid },
        {},
      ],
    });
    expect(res.json.data.successList.map((s) => s.orderId)).toEqual([a!.orderId, c!.orderId]);
    expect(res.json.data.failureList).toEqual([
      { orderId: '', clientOid: b!.clientOid, errorCode: '43001', errorMsg: 'The order does not exist' },
      { orderId: '', clientOid: '', errorCode: '43001', errorMsg: 'The order does not exist' },
    ]);
    expect(ctx.sim.state().openOrders.some((o) => o.orderId === b!.orderId)).toBe(true);
  });

  it('multiple mode takes each item symbol; an unknown or other-symbol order fails', async () => {
    const [a, b] = place(ctx.sim.demo.uid, [{ symbol: 'ETHUSDT' }, { symbol: 'XRPUSDT' }]);
    const res = await post<BatchResult>(ctx.sim, PATHS.batchCancel, {
      batchMode: 'multiple',
      orderList: [
        { symbol: 'ETHUSDT', orderId: a!.orderId },
        { symbol: 'BTCUSDT', orderId: b!.orderId },
        { symbol: 'ETHUSDT', orderId: '424242' },
      ],
    });
    expect(res.json.data.successList.map((s) => s.orderId)).toEqual([a!.orderId]);
    expect(res.json.data.failureList.map((f) => [f.orderId, f.errorCode])).toEqual([
      [b!.orderId, '43001'],
      ['424242', '43001'],
    ]);
  });

  it.each([
    [{ symbol: 'BTCUSDT' }, '40019', 'Parameter orderList cannot be empty'],
    [{ symbol: 'BTCUSDT', orderList: [] }, '40019', 'Parameter orderList cannot be empty'],
    [
      { symbol: 'BTCUSDT', orderList: Array.from({ length: 51 }, (_, i) => ({ orderId: String(i) })) },
      '40020',
      'Parameter orderList error',
    ],
    [{ orderList: [{ orderId: '1' }] }, '40019', 'Parameter symbol cannot be empty'],
    [{ batchMode: 'multiple', orderList: [{ orderId: '1' }] }, '40019', 'Parameter symbol cannot be empty'],
    [{ batchMode: 'all', symbol: 'BTCUSDT', orderList: [{ orderId: '1' }] }, '40020', 'Parameter batchMode error'],
  ])('rejects case %# with %s', async (body, code, msg) => {
    expect(outcome(await post(ctx.sim, PATHS.batchCancel, body))).toEqual({ status: 400, code, msg });
  });

  it('needs spot_trade (40014)', async () => {
    const readOnly = ctx.sim.createAccount({ permList: ['read'] });
    const res = await post(ctx.sim, PATHS.batchCancel, { symbol: 'BTCUSDT', orderList: [{ orderId: '1' }] }, readOnly);
    expect(res.json.code).toBe('40014');
  });
});
