import {
  AmbiguousResultError,
  type ExchangeError,
  ExchangeNetworkError,
  ExchangeRateLimitError,
  MalformedResponseError,
} from './errors/exchange-error.ts';

export interface RetryOptions {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 5_000 };

/** Exponential backoff with full jitter: a random delay up to base * 2^(attempt-1), capped. */
export function backoffDelay(attempt: number, options: RetryOptions, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}

export type RetryDecision = { retry: true } | { retry: false; error: ExchangeError };

/**
 * What to do after a failed attempt. A read (GET) is repeated whenever the
 * error class says it may help. A state-changing POST is repeated only when
 * the exchange certainly did not act on it: a 429 (rejected before any work)
 * or a connection that never opened. Any other failure after sending becomes
 * an AmbiguousResultError for the caller to resolve, an answer that cannot be
 * read included: the exchange may have acted on it (a 00000 whose data broke
 * the schema certainly did), so it must not be recorded as refused.
 */
export function decideRetry(
  method: 'GET' | 'POST',
  error: ExchangeError,
  attempt: number,
  options: RetryOptions,
): RetryDecision {
  const attemptsLeft = attempt < options.maxAttempts;
  if (method === 'GET') return error.retryable && attemptsLeft ? { retry: true } : { retry: false, error };
  const notActedOn =
    error instanceof ExchangeRateLimitError || (error instanceof ExchangeNetworkError && !error.requestMayHaveBeenSent);
  if (notActedOn) return attemptsLeft ? { retry: true } : { retry: false, error };
  if (error.retryable || error instanceof MalformedResponseError) {
    return { retry: false, error: new AmbiguousResultError(error.endpoint, error) };
  }
  return { retry: false, error };
}
