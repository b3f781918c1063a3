import { PermanentError } from '../errors/index.ts';
import type { ExchangeError } from '../exchange/errors/exchange-error.ts';

export class AccountNotFoundError extends PermanentError {
  constructor(name: string) {
    super(`account "${name}" is not registered (see: ledgerline accounts list)`, {
      code: 'ACCOUNT_NOT_FOUND',
      field: 'account',
      rule: 'must name a registered account',
    });
  }
}

export class AccountExistsError extends PermanentError {
  constructor(name: string) {
    super(`account "${name}" is already registered`, { code: 'ACCOUNT_EXISTS', field: 'name', rule: 'must be unique' });
  }
}

/** Rows that make an account permanent, by kind. */
export interface PermanentRows {
  /** Positions, spot records, transfers and OI-limit snapshots. */
  history: number;
  /** Management actions, mirrored sub-accounts and sub-account API keys. */
  management: number;
  reconciliation: number;
}

export class AccountInUseError extends PermanentError {
  constructor(name: string, rows: PermanentRows) {
    const count = (n: number, one: string, many: string) => (n > 0 ? `${n} ${n === 1 ? one : many}` : '');
    const kept = [
      count(rows.history, 'stored history row', 'stored history rows'),
      count(rows.management, 'management record', 'management records'),
      count(rows.reconciliation, 'reconciliation report', 'reconciliation reports'),
    ].filter(Boolean);
    super(
      `account "${name}" has ${kept.join(', ')}; ledgerline keeps them permanently, so it refuses to remove the account`,
      {
        code: 'ACCOUNT_IN_USE',
        field: 'account',
        rule: 'an account with stored history, management records or reports cannot be removed',
      },
    );
  }
}

/**
 * The exchange refused the credentials given to `accounts add` or `update` (one signed read
 * before saving): nothing was stored. Names the exchange's answer, never a secret.
 */
export class CredentialsRefusedError extends PermanentError {
  constructor(cause: ExchangeError) {
    super(
      `the exchange refused these credentials (${cause.name}: ${cause.code} ${cause.msg}); nothing was saved (--no-verify skips this check)`,
      {
        code: 'CREDENTIALS_REFUSED',
        field: 'credentials',
        rule: 'the API key, secret key and passphrase must sign a read the exchange accepts',
        cause,
      },
    );
  }
}
