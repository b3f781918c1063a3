import { z } from 'zod';

import { FUTURES_CATEGORIES, nonEmpty, oneOf } from './primitives.ts';

// Both parameters required (docs/exchange-api.md §7.7).
export const openInterestLimitRequest = z.strictObject({
  symbol: nonEmpty('a symbol'),
  category: oneOf(FUTURES_CATEGORIES),
});

export const fundNetFlowRequest = z.strictObject({
  symbol: nonEmpty('a symbol'),
});

export type OpenInterestLimitParams = z.input<typeof openInterestLimitRequest>;
export type FundNetFlowParams = z.input<typeof fundNetFlowRequest>;
