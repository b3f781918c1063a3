import { requirePermission } from '../auth/access.ts';
import { errors } from '../envelope.ts';
import type { OpenOrder } from '../state/orders.ts';
import type { PrivateEndpoint } from './endpoint.ts';
import { asObject, isMissing, type JsonObject, optionalString, parseBody } from './params.ts';

const MAX_ORDERS = 50;
const NOT_FOUND = { errorCode: '43001', errorMsg: 'The order does not exist' };

interface Failure {
  orderId: string;
  clientOid: string;
  errorMsg: string;
  errorCode: string;
}

/**
 * POST /api/v2/spot/trade/batch-cancel-order (5/s, the stricter of the two
 * stated rates). A batch that mixes orderId items with clientOid-only items
 * fails the clientOid-only ones (43001) and cancels the rest.
 */
export const batchCancelOrder: PrivateEndpoint = {
  name: 'batch-cancel-order',
  method: 'POST',
  path: '/api/v2/spot/trade/batch-cancel-order',
  perSecond: 5,
  auth: 'private',
  access: [(caller) => requirePermission(caller, 'spot_trade')],
  handle(ctx) {
    const body = asObject(parseBody(ctx.rawBody));
    const batchMode = optionalString(body, 'batchMode') ?? 'single';
    if (batchMode !== 'single' && batchMode !== 'multiple') throw errors.invalidParam('batchMode');
    const raw = body.orderList;
    if (raw === undefined || raw === null) throw errors.missingParam('orderList');
    if (!Array.isArray(raw)) throw errors.invalidParam('orderList');
    if (raw.length === 0) throw errors.missingParam('orderList');
    if (raw.length > MAX_ORDERS) throw errors.invalidParam('orderList');
    const items = raw.map((item) => asObject(item));
    const single = batchMode === 'single' ? optionalString(body, 'symbol') : undefined;
    if (batchMode === 'single' && single === undefined) throw errors.missingParam('symbol');
    if (batchMode === 'multiple' && items.some((item) => isMissing(item.symbol))) throw errors.missingParam('symbol');
    const mixed = items.some((item) => !isMissing(item.orderId));
    const successList: { orderId: string; clientOid: string }[] = [];
    const failureList: Failure[] = [];
    for (const item of items) {
      const orderId = idOf(item, 'orderId');
      const clientOid = idOf(item, 'clientOid');
      const symbol = single ?? String(item.symbol);
      const fail = (reason = NOT_FOUND) =>
        failureList.push({ orderId: orderId ?? '', clientOid: clientOid ?? '', ...reason });
      if (orderId === undefined && (clientOid === undefined || mixed)) {
        fail();
        continue;
      }
      const uid = ctx.caller.key.uid;
      const order: OpenOrder | undefined =
        orderId !== undefined ? ctx.sim.orders.byOrderId(uid, orderId) : ctx.sim.orders.byClientOid(uid, clientOid!);
      if (!order || order.category !== 'SPOT' || order.symbol !== symbol) fail();
      else if (order.stuck) fail({ errorCode: '24056', errorMsg: 'notExisted' });
      else {
        ctx.sim.orders.remove(order.orderId);
        successList.push({ orderId: order.orderId, clientOid: order.clientOid });
      }
    }
    return { successList, failureList };
  },
};

function idOf(item: JsonObject, name: string): string | undefined {
  const value = item[name];
  if (isMissing(value)) return undefined;
  if (typeof value !== 'string' && typeof value !== 'number') throw errors.invalidParam(name);
  return String(value);
}
