/**
 * Base of every error ledgerline raises on purpose. The class decides what
 * callers do with it: `retryable` tells job processors and the HTTP client
 * whether trying again can help, so no caller has to parse messages.
 */
export interface LedgerlineErrorOptions {
  /** Stable machine-readable code, e.g. `CONFIG_INVALID`. */
  code: string;
  /** The input field, variable or parameter at fault, when there is one. */
  field?: string;
  /** The rule that was broken, in words an operator understands. */
  rule?: string;
  cause?: unknown;
}

export abstract class LedgerlineError extends Error {
  readonly code: string;
  readonly field: string | undefined;
  readonly rule: string | undefined;
  /** Whether repeating the same operation unchanged could succeed. */
  abstract readonly retryable: boolean;

  constructor(message: string, options: LedgerlineErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.field = options.field;
    this.rule = options.rule;
  }

  /** One line for a terminal: no stack, names the field and the rule. */
  toOneLine(): string {
    return `${this.name}: ${this.message}`;
  }
}

/** A problem that the same input will hit again: fix the input, do not retry. */
export class PermanentError extends LedgerlineError {
  readonly retryable = false;
}

/** A problem of the moment (network, overload): retrying may succeed. */
export class TransientError extends LedgerlineError {
  readonly retryable = true;
}
