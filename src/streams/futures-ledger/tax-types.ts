/**
 * Every futureTaxType the exchange's documentation lists for future-record (docs/exchange-api.md
 * §5.6), in its order. Stored as text; a value outside this list is kept as sent and flagged.
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
