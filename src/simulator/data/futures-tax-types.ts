/**
 * Every futureTaxType of the spec (docs/exchange-api.md §5.6), in its order. The simulator writes
 * the ones a futures wallet of its accounts goes through; the list is what a request may see.
 */
export const FUTURE_TAX_TYPES = [
  'TRANSFER_IN',
  'TRANSFER_OUT',
  'ORDER_DEALT_FROZEN_OUT',
  'ORDER_DEALT_IN',
  'ORDER_PLF_FEE_OUT',
  'EXCHANGE_SOURCE_TOKEN_USER_OUT',
  'EXCHANGE_TARGET_TOKEN_USER_IN',
  'OPEN_LONG',
  'OPEN_SHORT',
  'BUY_DEAL',
  'SELL_DEAL',
  'CLOSE_LONG',
  'CLOSE_SHORT',
  'FORCE_CLOSE_LONG',
  'FORCE_CLOSE_SHORT',
  'BURST_CLOSE_LONG',
  'BURST_CLOSE_SHORT',
  'OFFSET_REDUCE_CLOSE_LONG',
  'OFFSET_REDUCE_CLOSE_SHORT',
  'FORCE_BUY_SSM',
  'FORCE_SELL_SSM',
  'BURST_BUY_SSM',
  'BURST_SELL_SSM',
  'RISK_LIQ_USER_IN',
  'RISK_LIQ_USER_OUT',
  'INTEREST_SETTLEMENT_OUT',
  'CONTRACT_MAIN_SETTLE_FEE_USER_IN',
  'CONTRACT_MAIN_SETTLE_FEE_USER_OUT',
] as const;

export type FutureTaxType = (typeof FUTURE_TAX_TYPES)[number];

export function futureTaxTypeIndex(type: FutureTaxType): number {
  return FUTURE_TAX_TYPES.indexOf(type);
}
