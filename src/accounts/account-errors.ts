import { PermanentError } from '../errors/index.ts';

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
