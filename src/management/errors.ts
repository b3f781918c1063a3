import { PermanentError, ValidationError } from '../errors/index.ts';

/** A limit of the exchange that the local mirror shows reached: refused before any request. */
export class LimitReachedError extends PermanentError {
  constructor(what: string, known: number, limit: number, adding: number) {
    super(
      `${what}: the exchange allows at most ${limit}; the local mirror already holds ${known}, so ${adding} more would exceed it (nothing was sent)`,
      { code: 'LIMIT_REACHED', field: what, rule: `at most ${limit}` },
    );
  }
}

/** An idempotency key already names a different command. */
export class IdempotencyConflictError extends ValidationError {
  constructor(key: string, command: string) {
    super('--idempotency-key', `is already used by a different ${command} action; choose a new key`, key);
  }
}

/** An action that ended without doing all it was asked to (the audit row says why). */
export class ActionFailedError extends PermanentError {
  constructor(actionId: string, status: string, detail: string) {
    super(`action ${actionId} ended ${status}: ${detail}`, { code: 'ACTION_FAILED' });
  }
}

export class ApiKeyNotFoundError extends PermanentError {
  constructor(apiKey: string) {
    super(`API key ${apiKey} is not in the local mirror (see: ledgerline apikeys list)`, {
      code: 'API_KEY_NOT_FOUND',
      field: 'apiKey',
      rule: 'must name a key ledgerline created or modified',
    });
  }
}

export class SecretUnavailableError extends PermanentError {
  constructor(apiKey: string, revealedAt: Date | null) {
    super(
      revealedAt
        ? `the secret of ${apiKey} was already shown at ${revealedAt.toISOString()} and is no longer stored`
        : `no secret of ${apiKey} is stored (the exchange never returned it to ledgerline)`,
      { code: 'SECRET_UNAVAILABLE', field: 'apiKey', rule: 'a secret is shown once' },
    );
  }
}
