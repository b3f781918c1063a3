/**
 * The passphrase of sub-account API keys being created or modified, for
 * `ledgerline subaccounts|apikeys` run without a terminal (scripts). Read here
 * because only src/config reads the environment; it is sealed at once and
 * never logged or queued.
 */
export const SUBKEY_PASSPHRASE_VARIABLE = 'LEDGERLINE_SUBKEY_PASSPHRASE';

export function subkeyPassphraseFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env[SUBKEY_PASSPHRASE_VARIABLE];
  return value ? value : undefined;
}
