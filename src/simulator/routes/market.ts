import { requirePermission } from '../auth/access.ts';
import { PRODUCT_TYPES, SPOT_SYMBOLS } from '../data/markets.ts';
import { netFlowSeries } from '../data/net-flow.ts';
import { openInterestLimit } from '../data/oi-limits.ts';
import { errors } from '../envelope.ts';
import type { PrivateEndpoint, PublicEndpoint } from './endpoint.ts';
import { enumQuery, requiredQuery } from './params.ts';

/** GET /api/v2/spot/market/fund-net-flow: public, per IP; 24 hourly points, oldest first. */
export const fundNetFlow: PublicEndpoint = {
  name: 'fund-net-flow',
  method: 'GET',
  path: '/api/v2/spot/market/fund-net-flow',
  perSecond: 1,
  auth: 'public',
  handle(ctx) {
    const symbol = requiredQuery(ctx.query, 'symbol');
    if (!SPOT_SYMBOLS.includes(symbol)) throw errors.invalidParam('symbol');
    return netFlowSeries(ctx.sim.seed, symbol, ctx.now);
  },
};

/** GET /api/v3/account/open-interest-limit: symbol and category both required. */
export const openInterestLimitEndpoint: PrivateEndpoint = {
  name: 'open-interest-limit',
  method: 'GET',
  path: '/api/v3/account/open-interest-limit',
  perSecond: 5,
  auth: 'private',
  access: [(caller) => requirePermission(caller, 'read')],
  handle(ctx) {
    const symbol = requiredQuery(ctx.query, 'symbol');
    requiredQuery(ctx.query, 'category');
    const category = enumQuery(ctx.query, 'category', PRODUCT_TYPES)!;
    const limit = openInterestLimit(ctx.sim.seed, symbol, category);
    if (!limit) throw errors.invalidParam('symbol');
    return limit;
  },
};
