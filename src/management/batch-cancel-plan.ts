import { ValidationError } from '../errors/index.ts';
import type { OrderRef } from './action-input.ts';

/** At most this many orders per batch-cancel-order request (spec). */
export const MAX_ORDERS_PER_REQUEST = 50;

export interface CancelChunk {
  /** Positions of the chunk's orders in the operator's list. */
  indices: number[];
  kind: 'orderId' | 'clientOid';
  body: {
    symbol?: string;
    batchMode: 'single' | 'multiple';
    orderList: { symbol?: string; orderId?: string; clientOid?: string }[];
  };
}

/**
 * Splits any number of orders into batch-cancel-order requests: one
 * identifier kind per request (the exchange leaves clientOid-only items of a
 * mixed batch open), at most 50 orders each, single mode when a request's
 * orders share one symbol and multiple mode when they do not. Orders are
 * grouped by symbol so that as many requests as possible stay single-symbol.
 */
export function planBatchCancel(orders: readonly OrderRef[]): CancelChunk[] {
  checkOrders(orders);
  const chunks: CancelChunk[] = [];
  for (const kind of ['orderId', 'clientOid'] as const) {
    const indices = orders
      .map((order, index) => ({ order, index }))
      .filter(({ order }) => order[kind] !== undefined)
      .sort((a, b) => (a.order.symbol < b.order.symbol ? -1 : a.order.symbol > b.order.symbol ? 1 : a.index - b.index))
      .map(({ index }) => index);
    for (let start = 0; start < indices.length; start += MAX_ORDERS_PER_REQUEST) {
      const part = indices.slice(start, start + MAX_ORDERS_PER_REQUEST);
      const symbols = new Set(part.map((index) => orders[index]!.symbol));
      const single = symbols.size === 1;
      const orderList = part.map((index) => {
        const order = orders[index]!;
        const id = { [kind]: order[kind] };
        return single ? id : { symbol: order.symbol, ...id };
      });
      chunks.push({
        indices: part,
        kind,
        body: single
          ? { symbol: orders[part[0]!]!.symbol, batchMode: 'single', orderList }
          : { batchMode: 'multiple', orderList },
      });
    }
  }
  return chunks;
}

function checkOrders(orders: readonly OrderRef[]): void {
  if (orders.length === 0) throw new ValidationError('orders', 'must name at least one order');
  const seen = new Map<string, number>();
  orders.forEach((order, index) => {
    const field = `orders[${index}]`;
    const hasId = order.orderId !== undefined;
    const hasClientOid = order.clientOid !== undefined;
    if (hasId === hasClientOid) {
      throw new ValidationError(field, 'must give exactly one of orderId and clientOid');
    }
    const key = hasId ? `orderId:${order.orderId}` : `clientOid:${order.clientOid}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      throw new ValidationError(field, `repeats orders[${earlier}] (${key.replace(':', ' ')})`);
    }
    seen.set(key, index);
  });
}
