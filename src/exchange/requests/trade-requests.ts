import { z } from 'zod';

import { nonEmpty, oneOf, ORDER_CATEGORIES } from './primitives.ts';

export const cancelSymbolOrderRequest = z.strictObject({
  category: oneOf(ORDER_CATEGORIES),
  symbol: nonEmpty('a symbol').optional(),
});

const batchCancelItem = z.strictObject({
  symbol: nonEmpty('a symbol').optional(),
  orderId: nonEmpty('an order id').optional(),
  clientOid: nonEmpty('a client order id').optional(),
});

export const batchCancelOrderRequest = z
  .strictObject({
    symbol: nonEmpty('a symbol').optional(),
    batchMode: oneOf(['single', 'multiple']).optional(),
    orderList: z
      .array(batchCancelItem, { error: 'must be a list of orders' })
      .min(1, { error: 'must have 1 to 50 items' })
      .max(50, { error: 'must have 1 to 50 items' }),
  })
  .superRefine((request, ctx) => {
    const multiple = request.batchMode === 'multiple';
    if (!multiple && request.symbol === undefined) {
      ctx.addIssue({ code: 'custom', path: ['symbol'], message: 'is required in single mode' });
    }
    // The exchange silently fails clientOid-only items of a batch that also uses orderId:
    // one identifier kind per batch, checked here so no order is left open by surprise.
    const byOrderId = request.orderList.some((item) => item.orderId !== undefined);
    request.orderList.forEach((item, index) => {
      if (item.orderId === undefined && item.clientOid === undefined) {
        ctx.addIssue({ code: 'custom', path: ['orderList', index], message: 'needs an orderId or a clientOid' });
      } else if (byOrderId && item.orderId === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['orderList', index, 'clientOid'],
          message: 'must not be mixed with orderId items in one batch: use one identifier kind for every order',
        });
      }
      if (multiple && item.symbol === undefined) {
        ctx.addIssue({ code: 'custom', path: ['orderList', index, 'symbol'], message: 'is required in multiple mode' });
      }
    });
  });

export type CancelSymbolOrderParams = z.input<typeof cancelSymbolOrderRequest>;
export type BatchCancelOrderParams = z.input<typeof batchCancelOrderRequest>;
