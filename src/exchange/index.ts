export { ExchangeClient } from './exchange-client.ts';
export type { ExchangeClientOptions } from './client-options.ts';
export { ENDPOINTS, ENDPOINT_NAMES, type EndpointName } from './endpoints.ts';
export * from './errors/exchange-error.ts';
export { RequestValidationError } from './errors/request-validation-error.ts';
export { LOCALES, type Locale } from './signer.ts';
export { RateBudget, type RateRule, type Slot } from './rate-budget/rate-budget.ts';
export {
  exchangeBounds,
  HORIZON_DAYS,
  horizonStart,
  planWindows,
  positionHorizon,
  MAX_SPAN_DAYS,
  type TimeWindow,
  type WindowedStream,
} from './paging/window-planner.ts';
export {
  pageHistoryPositions,
  pageSpotRecords,
  pageSubDepositWithdrawals,
  positionsReadableFrom,
  type Page,
} from './paging/pagers.ts';
export type * from './responses/history-responses.ts';
export type * from './responses/account-responses.ts';
export type * from './responses/market-responses.ts';
export type {
  HistoryPositionParams,
  SpotRecordParams,
  AllSubDepositWithdrawalParams,
} from './requests/history-requests.ts';
export type * from './requests/sub-account-requests.ts';
export type * from './requests/trade-requests.ts';
export type * from './requests/market-requests.ts';
