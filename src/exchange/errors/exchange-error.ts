import { LedgerlineError } from '../../errors/ledgerline-error.ts';

export interface ExchangeErrorDetails {
  /** Endpoint name as in the client, e.g. `historyPosition`. */
  endpoint: string;
  /** The envelope's `code` when the exchange sent one, otherwise a stable local code (`NETWORK`, ...). */
  code: string;
  /** The envelope's `msg`, or a description of what went wrong locally. */
  msg: string;
  /** HTTP status of the answer; undefined when no answer arrived. */
  httpStatus?: number;
  cause?: unknown;
}

/**
 * Base of every failure of an exchange call. Subclasses are the categories the
 * job layer acts on; `retryable` says whether the same call may be repeated.
 */
export abstract class ExchangeError extends LedgerlineError {
  readonly endpoint: string;
  readonly msg: string;
  readonly httpStatus: number | undefined;

  constructor(details: ExchangeErrorDetails) {
    const status = details.httpStatus === undefined ? '' : ` HTTP ${details.httpStatus}`;
    super(`${details.endpoint}:${status} ${details.code} ${details.msg}`, {
      code: details.code,
      cause: details.cause,
    });
    this.endpoint = details.endpoint;
    this.msg = details.msg;
    this.httpStatus = details.httpStatus;
  }
}

/** Missing, unknown or wrong key, passphrase, signature or timestamp. */
export class ExchangeAuthError extends ExchangeError {
  readonly retryable = false;
}

/** The key lacks a permission or the account is of the wrong class (not main, not broker, not UTA). */
export class ExchangePermissionError extends ExchangeError {
  readonly retryable = false;
}

/** The caller's address is not whitelisted, or the key is not bound to an IP where it must be. */
export class ExchangeIpError extends ExchangeError {
  readonly retryable = false;
}

/** The exchange rejected a parameter or a quota (sub-accounts, keys) was reached. */
export class ExchangeRequestError extends ExchangeError {
  readonly retryable = false;
}

/** A time range the exchange does not serve: too wide, reversed, or older than the horizon. */
export class ExchangeRangeError extends ExchangeError {
  readonly retryable = false;
}

/** Unknown path or unknown object (e.g. a sub-account API key). */
export class ExchangeNotFoundError extends ExchangeError {
  readonly retryable = false;
}

/** HTTP 429: the budget was exceeded; waiting helps. */
export class ExchangeRateLimitError extends ExchangeError {
  readonly retryable = true;
}

/** HTTP 5xx or the internal-fault code: the exchange may answer next time. */
export class ExchangeServerError extends ExchangeError {
  readonly retryable = true;
}

/** No usable answer: connection refused or reset, timeout, or a truncated body. */
export class ExchangeNetworkError extends ExchangeError {
  readonly retryable = true;
  /** Whether the request may have reached the exchange (false only when the connection never opened). */
  readonly requestMayHaveBeenSent: boolean;

  constructor(details: ExchangeErrorDetails & { requestMayHaveBeenSent: boolean }) {
    super(details);
    this.requestMayHaveBeenSent = details.requestMayHaveBeenSent;
  }
}

/** An error code this client does not know: treated as final, never guessed at. */
export class ExchangeUnknownError extends ExchangeError {
  readonly retryable = false;
}

/** A complete answer that does not have the documented shape. Names the endpoint and the path at fault. */
export class MalformedResponseError extends ExchangeError {
  readonly retryable = false;
  readonly path: string;

  constructor(endpoint: string, path: string, rule: string, httpStatus?: number, cause?: unknown) {
    super({ endpoint, code: 'MALFORMED_RESPONSE', msg: `${path || 'body'}: ${rule}`, httpStatus, cause });
    this.path = path;
  }
}

/** `bytes` as people read a limit: whole MiB or KiB when it is one, with the exact count beside. */
function sizeText(bytes: number): string {
  if (bytes % 1_048_576 === 0) return `${bytes / 1_048_576} MiB (${bytes} bytes)`;
  if (bytes % 1_024 === 0) return `${bytes / 1_024} KiB (${bytes} bytes)`;
  return `${bytes} bytes`;
}

/**
 * An answer larger than the client reads (EXCHANGE_MAX_ANSWER_BYTES, 16 MiB by default), refused
 * before it is parsed, its reading stopped at the limit. Malformed and final like any answer of
 * the wrong shape, deliberately: the same request would get as large an answer again, so a GET
 * is not repeated, and a POST so answered is ambiguous like any unreadable answer (§3.4).
 */
export class OversizedResponseError extends MalformedResponseError {
  readonly limitBytes: number;

  /** `seen`: what showed it, e.g. `Content-Length 18000000`. */
  constructor(endpoint: string, limitBytes: number, seen: string, httpStatus: number) {
    super(endpoint, 'body', `larger than the ${sizeText(limitBytes)} limit on an answer (${seen})`, httpStatus);
    this.limitBytes = limitBytes;
  }
}

/**
 * A state-changing call failed after the request may have reached the exchange
 * (timeout, reset, 5xx, unreadable answer): it may or may not have taken effect.
 * Never retried here: the caller checks the exchange's state and decides.
 */
export class AmbiguousResultError extends ExchangeError {
  readonly retryable = false;

  constructor(endpoint: string, cause: ExchangeError) {
    super({
      endpoint,
      code: 'AMBIGUOUS_RESULT',
      msg: `outcome unknown, check the exchange's state before repeating (${cause.code} ${cause.msg})`,
      httpStatus: cause.httpStatus,
      cause,
    });
  }
}

/**
 * The exchange has failed a window's requests with network errors (timeouts, a trickled answer
 * past its deadline, a refused connection) for longer than EXCHANGE_FAILURE_BUDGET_MS: final, so
 * the window fails within its bound (src/exchange/failure-bound.ts) instead of after every retry
 * of every queue try. Names the last failure, the cause an operator needs.
 */
export class ExchangeFailureBudgetError extends ExchangeError {
  readonly retryable = false;

  constructor(failure: ExchangeNetworkError, failingMs: number, budgetMs: number) {
    super({
      endpoint: failure.endpoint,
      code: failure.code,
      msg: `${failure.msg} (failing for ${Math.round(failingMs / 1000)} s, past EXCHANGE_FAILURE_BUDGET_MS ${budgetMs})`,
      httpStatus: failure.httpStatus,
      cause: failure,
    });
  }
}
