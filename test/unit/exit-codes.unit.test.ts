import { describe, expect, it } from 'vitest';

import { AccountNotFoundError } from '../../src/accounts/account-errors.ts';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.ts';
import { WindowsFailedError } from '../../src/cli/watch-windows.ts';
import {
  ConfigError,
  DatabaseNotReadyError,
  ServiceUnreachableError,
  ValidationError,
} from '../../src/errors/index.ts';
import {
  ExchangeAuthError,
  ExchangeNetworkError,
  ExchangeServerError,
} from '../../src/exchange/errors/exchange-error.ts';
import { RequestValidationError } from '../../src/exchange/errors/request-validation-error.ts';
import { ActionFailedError, LimitReachedError } from '../../src/management/errors.ts';

const exchange = { endpoint: 'spotRecord', code: 'NETWORK', msg: 'connect ECONNREFUSED' };

describe('exit codes', () => {
  it.each([
    ['a failed backfill (windows failed)', new WindowsFailedError(3), EXIT.failed],
    ['a management action that did not succeed', new ActionFailedError('a1', 'failed', 'x'), EXIT.failed],
    ['the exchange refusing the key', new ExchangeAuthError({ ...exchange, code: '40006', msg: 'bad' }), EXIT.failed],
    ['a bad argument', new ValidationError('--from', 'must be a date'), EXIT.badInput],
    ['a bad request parameter', new RequestValidationError('spotRecord', 'limit', 'at most 500', 900), EXIT.badInput],
    ['a bad variable', new ConfigError('WORKER_CONCURRENCY', 'a whole number'), EXIT.badInput],
    ['an account that is not registered', new AccountNotFoundError('nobody'), EXIT.badInput],
    ['a limit the request would exceed', new LimitReachedError('sub-accounts', 20, 20, 1), EXIT.badInput],
    ['Postgres down', new ServiceUnreachableError('Postgres', 'DATABASE_URL', 'h:5432', 'refused'), EXIT.unreachable],
    ['Redis down', new ServiceUnreachableError('Redis', 'REDIS_URL', 'h:6379', 'refused'), EXIT.unreachable],
    ['the database missing', DatabaseNotReadyError.missing('ledgerline'), EXIT.unreachable],
    ['the database not migrated', DatabaseNotReadyError.notMigrated('ledgerline'), EXIT.unreachable],
    ['the database at an older migration', DatabaseNotReadyError.older('ledgerline', 'a', 'b'), EXIT.unreachable],
    ['the database at a newer migration', DatabaseNotReadyError.newer('ledgerline', 'c', 'b'), EXIT.unreachable],
    [
      'a network error reaching the exchange',
      new ExchangeNetworkError({ ...exchange, requestMayHaveBeenSent: false }),
      EXIT.unreachable,
    ],
    [
      'the exchange answering 5xx after retries',
      new ExchangeServerError({ ...exchange, httpStatus: 503 }),
      EXIT.unreachable,
    ],
    ['an unexpected error', new TypeError('x is undefined'), EXIT.failed],
  ])('%s exits %i', (_name, error, code) => {
    expect(exitCodeFor(error)).toBe(code);
  });

  it('keeps a failed backfill (1) apart from an unreachable exchange (3), bad input (2) and an interruption (130)', () => {
    expect(new Set([EXIT.failed, EXIT.badInput, EXIT.unreachable, EXIT.interrupted]).size).toBe(4);
    // 130 is what a shell reports for a process SIGINT ended (128 + 2), so wrappers read it as such.
    expect(EXIT).toEqual({ done: 0, failed: 1, badInput: 2, unreachable: 3, interrupted: 130 });
  });
});
