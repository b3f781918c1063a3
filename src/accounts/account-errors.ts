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

export class AccountInUseError extends PermanentError {
  constructor(name: string, rows: number) {
    super(
      `account "${name}" has ${rows} stored history rows; ledgerline keeps history permanently, so it refuses to remove it`,
      { code: 'ACCOUNT_IN_USE', field: 'account', rule: 'an account with stored history cannot be removed' },
    );
  }
}
