import {
  ConfigError,
  DatabaseNotReadyError,
  LedgerlineError,
  ServiceUnreachableError,
  ValidationError,
} from '../errors/index.ts';
import {
  ExchangeNetworkError,
  ExchangeRateLimitError,
  ExchangeServerError,
} from '../exchange/errors/exchange-error.ts';
import { InterruptedError, NoWorkerError } from './interrupted-error.ts';

/**
 * What a `ledgerline` command's exit code means (the README's table). Scripts
 * and cron wrappers decide on these: 2 needs the command fixed, 3 only waiting
 * for a service, 1 a look at what failed.
 */
export const EXIT = {
  /** Everything asked for was done. */
  done: 0,
  /** A check failed (reconciliation) or work failed (windows, actions, an exchange refusal). */
  failed: 1,
  /** Bad input: an argument, a variable, or a name that is not registered; nothing was done. */
  badInput: 2,
  /**
   * Postgres, Redis or the exchange could not be reached, or the database is not at this build's
   * migrations (the line names the fix); trying later, or after that fix, may succeed.
   */
  unreachable: 3,
  /** Interrupted (Ctrl-C, SIGTERM), as a shell reports a process SIGINT ended: what was done is kept. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code of a command that ended with `error`. Pure: decided by the error's class alone. */
export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof InterruptedError) return EXIT.interrupted;
  // No worker took the jobs: starting one (or waiting) is the fix, as for a service down.
  if (error instanceof NoWorkerError) return EXIT.unreachable;
  if (error instanceof ServiceUnreachableError) return EXIT.unreachable;
  // A store that answers but is not ready: missing, not migrated, at another migration.
  if (error instanceof DatabaseNotReadyError) return EXIT.unreachable;
  // The exchange did not answer usefully even after the client's retries.
  if (
    error instanceof ExchangeNetworkError ||
    error instanceof ExchangeServerError ||
    error instanceof ExchangeRateLimitError
  ) {
    return EXIT.unreachable;
  }
  if (error instanceof ValidationError || error instanceof ConfigError) return EXIT.badInput;
  // A refusal naming the field the user gave (an unknown account, a key not in the mirror,
  // a limit the request would exceed) is bad input too: nothing was done.
  if (error instanceof LedgerlineError && !error.retryable && error.field !== undefined) return EXIT.badInput;
  return EXIT.failed;
}
