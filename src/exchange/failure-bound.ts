import { DEFAULT_RETRY, type RetryOptions } from './retry-policy.ts';
import { RETRY_WAIT_IN_PLACE_MS } from './signed-caller.ts';

/** EXCHANGE_FAILURE_BUDGET_MS's default: with the default deadline the bound is 250 s (failureBoundMs). */
export const DEFAULT_FAILURE_BUDGET_MS = 180_000;

export interface FailureBoundSettings {
  /** EXCHANGE_DEADLINE_MS: the longest one request may take. */
  deadlineMs: number;
  /** EXCHANGE_FAILURE_BUDGET_MS: how long a window's requests may fail before a network error is final. */
  budgetMs: number;
  retry?: RetryOptions;
}

/**
 * The longest a window can take to fail, from the start of its first failing request, when every
 * request fails with a network error (a trickled answer, no answer, no connection):
 * - the first failing request takes at most one deadline, and its failure sets `failing_since`;
 * - the budget then runs; a try that ends inside it is retried by the queue only if its backoff
 *   ends inside it too (otherwise the try's failure is final), so no queue backoff straddles its end;
 * - when it runs out, a request is in flight (at most one more deadline) or about to start after
 *   the client's backoff (at most `maxDelayMs`) or a wait for its rate-budget slot (at most
 *   RETRY_WAIT_IN_PLACE_MS); the first network error after it is final.
 * deadline + budget + max backoff + slot wait + deadline: 30 + 180 + 5 + 5 + 30 = 250 s with the defaults.
 */
export function failureBoundMs(settings: FailureBoundSettings): number {
  const retry = settings.retry ?? DEFAULT_RETRY;
  return settings.deadlineMs + settings.budgetMs + retry.maxDelayMs + RETRY_WAIT_IN_PLACE_MS + settings.deadlineMs;
}
