export type { ExchangeClientOptions } from './client-options.ts';
export {
  coreEndpoint,
  ENDPOINT_NAMES,
  type EndpointName,
  ENDPOINTS,
  type EndpointSpec,
  type NamedEndpoint,
  PER_IP_PER_MINUTE,
} from './endpoints.ts';
export * from './errors/exchange-error.ts';
export { RequestValidationError } from './errors/request-validation-error.ts';
export { ExchangeClient } from './exchange-client.ts';
export {
  exchangeBounds,
  GRID_EPOCH_MS,
  gridCell,
  HORIZON_MARGIN_MS,
  horizonStart,
  type PlanOptions,
  planWindows,
  type TimeWindow,
  type WindowSpan,
} from './paging/window-planner.ts';
export { MemoryRateBudget } from './rate-budget/memory-rate-budget.ts';
export { RateBudget } from './rate-budget/rate-budget.ts';
export type { RateBudgetPort, RateRule, Slot } from './rate-budget/rate-budget-port.ts';
export type * from './requests/market-requests.ts';
export type * from './requests/sub-account-requests.ts';
export type * from './requests/trade-requests.ts';
export type * from './responses/account-responses.ts';
export type * from './responses/market-responses.ts';
export { type Locale, LOCALES } from './signer.ts';
