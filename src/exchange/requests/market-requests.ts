import { z } from 'zod';
import { FUTURES_CATEGORIES, nonEmpty, oneOf } from './primitives.ts';

// Both parameters required (decisions.md §4).
export const openInterestLimitRequest = z.strictObject({
  symbol: nonEmpty('a symbol'),
  category: oneOf(FUTURES_CATEGORIES),
});

export const fundNetFlowRequest = z.strictObject({
  symbol: nonEmpty('a symbol'),
});

export type OpenInterestLimitParams = z.input<typeof openInterestLimitRequest>;
export type FundNetFlowParams = z.input<typeof fundNetFlowRequest>;
