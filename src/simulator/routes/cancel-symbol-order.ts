import { requirePermission, requireUnifiedTrading } from '../auth/access.ts';
import { ORDER_CATEGORIES, type OrderCategory } from '../data/markets.ts';
import { errors } from '../envelope.ts';
import type { Permission } from '../state/types.ts';
import type { PrivateEndpoint } from './endpoint.ts';
import { asObject, optionalString, parseBody, requiredString } from './params.ts';

/** The key permission trading in a category needs. */
const TRADE_PERMISSION: Record<OrderCategory, Permission> = {
  SPOT: 'spot_trade',
  MARGIN: 'margin_trade',
  'USDT-FUTURES': 'contract_trade',
  'COIN-FUTURES': 'contract_trade',
  'USDC-FUTURES': 'contract_trade',
};

/**
 * POST /api/v3/trade/cancel-symbol-order: cancels the caller's open orders of
 * the category (and symbol). An order that cannot be cancelled stays open and
 * its item carries code 24056 / notExisted.
 */
export const cancelSymbolOrder: PrivateEndpoint = {
  name: 'cancel-symbol-order',
  method: 'POST',
  path: '/api/v3/trade/cancel-symbol-order',
  perSecond: 5,
  auth: 'private',
  access: [requireUnifiedTrading],
  handle(ctx) {
    const body = asObject(parseBody(ctx.rawBody));
    const category = requiredString(body, 'category') as OrderCategory;
    if (!ORDER_CATEGORIES.includes(category)) throw errors.invalidParam('category');
    requirePermission(ctx.caller, TRADE_PERMISSION[category]);
    const symbol = optionalString(body, 'symbol');
    const orders = ctx.sim.orders.openOf(ctx.caller.key.uid, category, symbol);
    const list = orders.map((order) => {
      if (order.stuck) return { orderId: order.orderId, clientOid: order.clientOid, code: '24056', msg: 'notExisted' };
      ctx.sim.orders.remove(order.orderId);
      return { orderId: order.orderId, clientOid: order.clientOid };
    });
    return { list };
  },
};
