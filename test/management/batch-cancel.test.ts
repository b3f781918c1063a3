import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { OrderRef } from '../../src/management/action-input.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { PATHS, requestsTo, runToEnd } from './support.ts';

const db = useTestDatabase('mgmtcancel');
let pipeline: Pipeline;

beforeAll(async () => {
  pipeline = await startPipeline({ databaseUrl: db.url });
  pipeline.startWorkers();
});
afterAll(async () => {
  await pipeline?.close();
});

const SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'];

/** `count` open spot orders across the three symbols; every other one is named by its clientOid. */
function placeMixed(tag: string, count: number): OrderRef[] {
  const placed = pipeline.sim.placeOrders(
    Array.from({ length: count }, (_, k) => ({
      category: 'SPOT' as const,
      symbol: SYMBOLS[k % 3]!,
      orderId: `${tag}-o${k}`,
      clientOid: `${tag}-c${k}`,
    })),
  );
  return placed.map((order, k) =>
    k % 2 === 0
      ? { symbol: order.symbol, orderId: order.orderId }
      : { symbol: order.symbol, clientOid: order.clientOid },
  );
}

type Body = {
  symbol?: string;
  batchMode: string;
  orderList: { symbol?: string; orderId?: string; clientOid?: string }[];
};

describe('batch cancel of 180 orders mixing id kinds across 3 symbols', () => {
  it('sends requests of at most 50 orders of one id kind, cancels every order, and stores each outcome', async () => {
    const orders = placeMixed('b', 180);
    pipeline.sim.requestLog.clear();
    const action = await runToEnd(pipeline, { command: 'orders_batch_cancel', params: { orders } });
    expect(action.status).toBe('succeeded');

    const open = new Set(pipeline.sim.state().openOrders.map((o) => o.orderId));
    expect(Array.from({ length: 180 }, (_, k) => `b-o${k}`).filter((id) => open.has(id))).toEqual([]);

    const requests = await db.prisma.managementRequest.findMany({
      where: { actionId: action.id },
      orderBy: { seq: 'asc' },
    });
    // 90 by orderId and 90 by clientOid: 50 + 40 of each kind.
    expect(requests.map((r) => (r.body as Body).orderList.length)).toEqual([50, 40, 50, 40]);
    expect(requestsTo(pipeline, PATHS.batchCancel).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    for (const request of requests) {
      const body = request.body as Body;
      const byOrderId = body.orderList.filter((item) => item.orderId !== undefined).length;
      const byClientOid = body.orderList.filter((item) => item.clientOid !== undefined).length;
      expect([byOrderId, byClientOid]).toContain(0);
      expect(byOrderId + byClientOid).toBe(body.orderList.length);
      const symbols = new Set(body.orderList.map((item) => item.symbol ?? body.symbol));
      expect(body.batchMode).toBe(symbols.size > 1 ? 'multiple' : 'single');
      if (body.batchMode === 'multiple') expect(body.orderList.every((item) => item.symbol !== undefined)).toBe(true);
      expect(request.status).toBe('succeeded');
    }

    const outcomes = await db.prisma.orderCancelOutcome.findMany({
      where: { actionId: action.id },
      orderBy: { seq: 'asc' },
    });
    expect(outcomes).toHaveLength(180);
    expect(outcomes.every((o) => o.result === 'cancelled')).toBe(true);
    // Each outcome names the order fully (the answer gives the id the operator did not) and its request.
    expect(outcomes.map((o) => [o.orderId, o.clientOid])).toEqual(
      Array.from({ length: 180 }, (_, k) => [`b-o${k}`, `b-c${k}`]),
    );
    expect(new Set(outcomes.map((o) => o.requestSeq))).toEqual(new Set(requests.map((r) => r.seq)));
    expect(action.result).toMatchObject({ orders: 180, cancelled: 180, failed: 0, requests: 4 });
  });

  it('records per order what could not be cancelled, and is not stored succeeded when an order was refused', async () => {
    const orders = placeMixed('f', 4);
    pipeline.sim.placeOrders([{ category: 'SPOT', symbol: 'BTCUSDT', orderId: 'f-stuck', stuck: true }]);
    const action = await runToEnd(pipeline, {
      command: 'orders_batch_cancel',
      params: {
        orders: [...orders, { symbol: 'BTCUSDT', orderId: 'f-stuck' }, { symbol: 'ETHUSDT', orderId: 'f-missing' }],
      },
    });
    // The exchange still shows two of the six orders open (or never had one): partial, not succeeded.
    expect(action.status).toBe('partial');
    expect(action.error).toBe("2 order(s) not cancelled (each order's outcome is listed)");
    const outcomes = await db.prisma.orderCancelOutcome.findMany({
      where: { actionId: action.id },
      orderBy: { seq: 'asc' },
    });
    expect(outcomes.map((o) => [o.result, o.errorCode])).toEqual([
      ['cancelled', null],
      ['cancelled', null],
      ['cancelled', null],
      ['cancelled', null],
      ['failed', '24056'],
      ['failed', '43001'],
    ]);
    expect(action.result).toMatchObject({ orders: 6, cancelled: 4, failed: 2 });
  });

  it('after a lost answer the idempotent request is repeated; its orders end not_open (cancelled by the lost one)', async () => {
    const orders = placeMixed('a', 60);
    pipeline.sim.faults.set({ applyThenReset: { path: PATHS.batchCancel, count: 1 } });
    const action = await runToEnd(pipeline, { command: 'orders_batch_cancel', params: { orders } });
    pipeline.sim.faults.clear();
    expect(action.status).toBe('succeeded');
    const open = new Set(pipeline.sim.state().openOrders.map((o) => o.orderId));
    expect(orders.filter((_o, k) => open.has(`a-o${k}`))).toEqual([]);
    const requests = await db.prisma.managementRequest.findMany({
      where: { actionId: action.id },
      orderBy: { seq: 'asc' },
    });
    expect(requests.map((r) => [r.step, r.purpose, r.status])).toEqual([
      ['chunk-0', 'send', 'ambiguous'],
      ['chunk-0', 'repeat', 'succeeded'],
      ['chunk-1', 'send', 'succeeded'],
    ]);
    const outcomes = await db.prisma.orderCancelOutcome.groupBy({
      by: ['result'],
      where: { actionId: action.id },
      _count: { _all: true },
    });
    expect(Object.fromEntries(outcomes.map((g) => [g.result, g._count._all]))).toEqual({ not_open: 30, cancelled: 30 });
    expect(action.resolution).toMatch(/recorded not_open/);
  });
});
