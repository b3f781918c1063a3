import type {
  BatchCancelOrderParams,
  BatchCancelOrderResult,
  CancelSymbolOrderParams,
  CancelSymbolOrderResult,
} from '../../exchange/index.ts';
import type { OrderCancelResult } from '../../generated/prisma/enums.ts';
import type { ActionInput, OrderRef } from '../action-input.ts';
import type { PlannedRequest } from '../action-plan.ts';
import type { Tx } from '../request-recorder.ts';
import { runStep, type StepResult } from '../run-step.ts';
import { type ActionContext, type ActionOutcome, foldSteps } from './action-context.ts';

type CancelAll = Extract<ActionInput, { command: 'orders_cancel_all' }>;
type BatchCancel = Extract<ActionInput, { command: 'orders_batch_cancel' }>;

/** The exchange's answer for an order that is not open (docs/exchange-api.md §3.5). */
const NOT_FOUND_CODE = '43001';

const CANCEL_IS_IDEMPOTENT =
  'cancelling is idempotent (a repeat cannot cancel anything twice or create anything), so the same request was sent again';

/** cancel-symbol-order: every open order of the category (and symbol); each listed order gets its own row. */
export async function cancelAllOrders(ctx: ActionContext<CancelAll>): Promise<ActionOutcome> {
  const { action, client } = ctx;
  const request = ctx.plan[0]!;
  const step = await runStep<CancelSymbolOrderResult>(ctx.recorder, {
    request,
    call: () => client.cancelSymbolOrder(request.body as CancelSymbolOrderParams),
    onSuccess: async (tx, data, seq) => {
      const first = await tx.orderCancelOutcome.count({ where: { actionId: action.id } });
      await tx.orderCancelOutcome.createMany({
        data: data.list.map((item, k) => ({
          actionId: action.id,
          seq: first + k,
          symbol: ctx.input.params.symbol ?? null,
          orderId: item.orderId,
          clientOid: item.clientOid,
          requestSeq: seq,
          result: item.code ? ('failed' as const) : ('cancelled' as const),
          errorCode: item.code,
          errorMsg: item.msg,
        })),
      });
    },
    recovery: {
      kind: 'repeat',
      why: `${CANCEL_IS_IDEMPOTENT}; orders the lost request cancelled are no longer open, so the repeat does not list them and no endpoint reports them`,
    },
  });
  const summary = await orderSummary(ctx);
  return { ...judgedByOrders(foldSteps([step], 1), summary), result: summary };
}

/**
 * batch-cancel-order for any number of orders, in requests of at most 50 of
 * one identifier kind. Every order has its row from the start; each request's
 * answer settles its orders. A request that fails does not stop the others:
 * cancelling as much as possible is what the operator asked for.
 */
export async function batchCancelOrders(ctx: ActionContext<BatchCancel>): Promise<ActionOutcome> {
  const { action, client } = ctx;
  const orders = ctx.input.params.orders;
  await ctx.prisma.orderCancelOutcome.createMany({
    data: orders.map((order, seq) => ({
      actionId: action.id,
      seq,
      symbol: order.symbol,
      orderId: order.orderId ?? null,
      clientOid: order.clientOid ?? null,
    })),
    skipDuplicates: true,
  });
  const results: StepResult[] = [];
  for (const request of ctx.plan) {
    const step = await runStep<BatchCancelOrderResult>(ctx.recorder, {
      request,
      call: () => client.batchCancelOrder(request.body as BatchCancelOrderParams),
      onSuccess: (tx, data, seq, recovering) => settleChunk(tx, action.id, orders, request, data, seq, recovering),
      recovery: {
        kind: 'repeat',
        why: `${CANCEL_IS_IDEMPOTENT}; an order the lost request cancelled is answered ${NOT_FOUND_CODE} by the repeat and recorded not_open`,
      },
    });
    if (step.state !== 'done') {
      await ctx.prisma.orderCancelOutcome.updateMany({
        where: { actionId: action.id, seq: { in: request.orderIndices! }, result: 'pending' },
        data: step.state === 'failed' ? { result: 'failed', errorMsg: step.error } : { result: 'unknown' },
      });
    }
    results.push(step);
  }
  const summary = await orderSummary(ctx);
  return { ...judgedByOrders(foldIndependent(results), summary), result: summary };
}

async function settleChunk(
  tx: Tx,
  actionId: string,
  orders: readonly OrderRef[],
  request: PlannedRequest,
  data: BatchCancelOrderResult,
  requestSeq: number,
  recovering: boolean,
): Promise<void> {
  const kind = (request.body as BatchCancelOrderParams).orderList[0]!.orderId !== undefined ? 'orderId' : 'clientOid';
  const succeeded = new Map(data.successList.map((item) => [item[kind], item]));
  const failed = new Map(data.failureList.map((item) => [item[kind], item]));
  for (const seq of request.orderIndices!) {
    const id = orders[seq]![kind];
    const ok = succeeded.get(id ?? null);
    const failure = failed.get(id ?? null);
    let result: OrderCancelResult = 'unknown';
    if (ok) result = 'cancelled';
    else if (failure) result = recovering && failure.errorCode === NOT_FOUND_CODE ? 'not_open' : 'failed';
    await tx.orderCancelOutcome.update({
      where: { actionId_seq: { actionId, seq } },
      data: {
        result,
        requestSeq,
        // The answer names both identifiers of an order: keep the one the operator did not give.
        orderId: ok?.orderId ?? orders[seq]!.orderId ?? null,
        clientOid: ok?.clientOid ?? orders[seq]!.clientOid ?? null,
        errorCode: failure?.errorCode ?? null,
        errorMsg: failure?.errorMsg ?? null,
      },
    });
  }
}

/** Steps that do not depend on each other: every one ran, the worst decides. */
function foldIndependent(results: readonly StepResult[]): Omit<ActionOutcome, 'result'> {
  const resolutions = results.flatMap((r) => (r.state !== 'failed' && r.resolution ? [r.resolution] : []));
  const errors = results.flatMap((r, k) => (r.state === 'failed' ? [`request ${k + 1}: ${r.error}`] : []));
  const resolution = resolutions.length > 0 ? resolutions.join('\n') : null;
  const error = errors.length > 0 ? errors.join('\n') : null;
  if (results.some((r) => r.state === 'ambiguous')) return { status: 'ambiguous', resolution, error };
  const done = results.filter((r) => r.state === 'done').length;
  if (done === results.length) return { status: 'succeeded', resolution };
  return { status: done > 0 ? 'partial' : 'failed', resolution, error };
}

/**
 * Requests that all got an answer are not an action that did what it was asked: an order the
 * exchange refused to cancel (not found, not cancellable) is listed in the answer's failure list.
 * The action is judged by its orders, as the exchange shows them: all cancelled (or no longer
 * open) is success; some is partial; none is failed.
 */
function judgedByOrders(
  folded: Omit<ActionOutcome, 'result'>,
  summary: Awaited<ReturnType<typeof orderSummary>>,
): Omit<ActionOutcome, 'result'> {
  if (folded.status !== 'succeeded') return folded;
  const notCancelled = summary.failed + summary.unknown + summary.pending;
  if (notCancelled === 0) return folded;
  const settled = summary.cancelled + summary.not_open;
  return {
    ...folded,
    status: settled > 0 ? 'partial' : 'failed',
    error: `${notCancelled} order(s) not cancelled (each order's outcome is listed)`,
  };
}

async function orderSummary(ctx: ActionContext) {
  const groups = await ctx.prisma.orderCancelOutcome.groupBy({
    by: ['result'],
    where: { actionId: ctx.action.id },
    _count: { _all: true },
  });
  const counts: Record<OrderCancelResult, number> = { cancelled: 0, failed: 0, not_open: 0, unknown: 0, pending: 0 };
  for (const group of groups) counts[group.result] = group._count._all;
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  return { orders: total, ...counts, requests: ctx.recorder.count };
}
