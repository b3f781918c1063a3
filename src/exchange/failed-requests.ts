import { AsyncLocalStorage } from 'node:async_hooks';

import type { ExchangeError } from './errors/exchange-error.ts';

/**
 * Told of each request the exchange failed; it must not throw (it records, the call goes on). An
 * error returned ends the call with it instead of any retry (a failure budget spent).
 */
export type FailedRequestListener = (error: ExchangeError) => Promise<ExchangeError | undefined | void>;

const listening = new AsyncLocalStorage<FailedRequestListener>();

/**
 * Runs `work` so that every request inside it that fails (a network error, a 5xx or 429, an
 * answer that cannot be read, a refusal) is reported to `listener` as it happens, retried or not.
 * Like the budget-wait policy it belongs to the caller (an ingest job records each failure on its
 * window) and travels with the async context through the shared client, its pager and prefetch.
 */
export function reportingFailedRequests<T>(listener: FailedRequestListener, work: () => Promise<T>): Promise<T> {
  return listening.run(listener, work);
}

/** The current context's listener, if any. */
export function failedRequestListener(): FailedRequestListener | undefined {
  return listening.getStore();
}
