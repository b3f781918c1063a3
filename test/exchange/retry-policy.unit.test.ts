import { describe, expect, it } from 'vitest';

import {
  AmbiguousResultError,
  ExchangeAuthError,
  ExchangeNetworkError,
  ExchangeRateLimitError,
  ExchangeServerError,
  MalformedResponseError,
} from '../../src/exchange/errors/exchange-error.ts';
import { backoffDelay, decideRetry, DEFAULT_RETRY } from '../../src/exchange/retry-policy.ts';

const endpoint = 'createSub';
const server = new ExchangeServerError({ endpoint, code: '40015', msg: 'internal', httpStatus: 500 });
const limited = new ExchangeRateLimitError({ endpoint, code: '429', msg: 'Too Many Requests', httpStatus: 429 });
const auth = new ExchangeAuthError({ endpoint, code: '40009', msg: 'sign signature error', httpStatus: 400 });
const reset = new ExchangeNetworkError({ endpoint, code: 'NETWORK', msg: 'reset', requestMayHaveBeenSent: true });
const unreadable = new MalformedResponseError(endpoint, 'data.subUid', 'must be a non-empty string', 200);
const refused = new ExchangeNetworkError({ endpoint, code: 'NETWORK', msg: 'refused', requestMayHaveBeenSent: false });

describe('decideRetry', () => {
  it('retries a GET on 5xx, 429 and network errors, never on a permanent error', () => {
    for (const error of [server, limited, reset, refused]) {
      expect(decideRetry('GET', error, 1, DEFAULT_RETRY)).toEqual({ retry: true });
    }
    expect(decideRetry('GET', auth, 1, DEFAULT_RETRY)).toEqual({ retry: false, error: auth });
    expect(decideRetry('GET', unreadable, 1, DEFAULT_RETRY)).toEqual({ retry: false, error: unreadable });
  });

  it('stops after maxAttempts with the last error', () => {
    expect(decideRetry('GET', server, DEFAULT_RETRY.maxAttempts, DEFAULT_RETRY)).toEqual({
      retry: false,
      error: server,
    });
  });

  it('retries a POST only when the exchange certainly did not act on it', () => {
    expect(decideRetry('POST', limited, 1, DEFAULT_RETRY)).toEqual({ retry: true });
    expect(decideRetry('POST', refused, 1, DEFAULT_RETRY)).toEqual({ retry: true });
    expect(decideRetry('POST', auth, 1, DEFAULT_RETRY)).toEqual({ retry: false, error: auth });
  });

  it('turns a POST failure after sending into an AmbiguousResultError that is not retryable', () => {
    // An answer that cannot be read included: the exchange may have acted on it.
    for (const cause of [reset, server, unreadable]) {
      const decision = decideRetry('POST', cause, 1, DEFAULT_RETRY);
      expect(decision.retry).toBe(false);
      const error = decision.retry ? undefined : decision.error;
      expect(error).toBeInstanceOf(AmbiguousResultError);
      expect(error).toMatchObject({ endpoint, retryable: false, cause });
    }
  });
});

describe('backoffDelay', () => {
  it('grows exponentially, jittered below the ceiling, and is capped', () => {
    const options = { maxAttempts: 10, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect(backoffDelay(1, options, () => 1)).toBe(100);
    expect(backoffDelay(3, options, () => 1)).toBe(400);
    expect(backoffDelay(8, options, () => 1)).toBe(1_000);
    expect(backoffDelay(3, options, () => 0.5)).toBe(200);
    expect(backoffDelay(3, options, () => 0)).toBe(0);
  });
});
