/**
 * Exchange credentials handed to `ledgerline accounts add` without a prompt
 * (scripts, containers). Read here because only src/config reads the
 * environment; the values are sealed at once and never logged.
 */
export interface AccountSecretsFromEnv {
  secretKey?: string;
  passphrase?: string;
}

export const ACCOUNT_SECRET_VARIABLE = 'LEDGERLINE_ACCOUNT_SECRET';
export const ACCOUNT_PASSPHRASE_VARIABLE = 'LEDGERLINE_ACCOUNT_PASSPHRASE';

export function accountSecretsFromEnv(env: NodeJS.ProcessEnv = process.env): AccountSecretsFromEnv {
  const secretKey = env[ACCOUNT_SECRET_VARIABLE];
  const passphrase = env[ACCOUNT_PASSPHRASE_VARIABLE];
  return {
    ...(secretKey ? { secretKey } : {}),
    ...(passphrase ? { passphrase } : {}),
  };
}
