import type { Command } from 'commander';

import { createRuntime } from '../../../jobs/composition/create-runtime.ts';
import { parseAccountInput } from '../../accounts/account-input.ts';
import {
  AccountService,
  type AccountSummary,
  type AccountUpdate,
  type VerifyCredentials,
} from '../../accounts/account-service.ts';
import {
  ACCOUNT_PASSPHRASE_VARIABLE,
  ACCOUNT_SECRET_VARIABLE,
  accountSecretsFromEnv,
} from '../../config/account-secrets-env.ts';
import type { Config } from '../../config/config.ts';
import { ValidationError } from '../../errors/index.ts';
import { formatInstant } from '../../ingest/time-arguments.ts';
import { plainTable, printJson } from '../plain-table.ts';
import { promptSecret } from '../prompt-secret.ts';
import { runTool } from '../run-tool.ts';
import { withPrisma } from '../with-prisma.ts';

interface AddOptions {
  name: string;
  baseUrl: string;
  apiKey: string;
  uid: string;
  broker?: boolean;
  uta?: boolean;
  verify: boolean;
}

interface UpdateOptions {
  baseUrl?: string;
  apiKey?: string;
  uid?: string;
  secretKey?: boolean;
  passphrase?: boolean;
  broker?: boolean;
  uta?: boolean;
  verify: boolean;
}

async function secret(label: string, variable: string, fromEnv: string | undefined): Promise<string> {
  const value = fromEnv ?? (await promptSecret(`${label}: `));
  if (!value) throw new ValidationError(label, `is required: set ${variable} or run in a terminal to be prompted`);
  return value;
}

/**
 * Runs `body` with the account service and, unless --no-verify, a check of credentials against
 * the exchange: that check signs through the shared rate budget, so it needs Redis as well.
 */
async function withAccounts<T>(
  config: Config,
  verify: boolean,
  body: (accounts: AccountService, verify: VerifyCredentials | undefined) => Promise<T>,
): Promise<T> {
  if (!verify) return withPrisma(config, (prisma) => body(new AccountService(prisma, config.masterKey), undefined));
  const runtime = createRuntime(config, { poolSize: 1 });
  try {
    return await body(runtime.accounts, (credentials) => runtime.clients.verify(credentials));
  } finally {
    await runtime.close();
  }
}

const lifecycle = (account: AccountSummary) =>
  account.disabledAt ? `disabled since ${formatInstant(account.disabledAt.getTime())}` : 'enabled';

/** An account as `accounts list --json` prints it: stable field names, the API key masked. */
function accountJson(account: AccountSummary) {
  return {
    name: account.name,
    uid: account.uid,
    baseUrl: account.baseUrl,
    apiKey: account.apiKey,
    isBrokerParent: account.isBrokerParent,
    isUnifiedAccount: account.isUnifiedAccount,
    disabled: account.disabledAt !== null,
    disabledAt: account.disabledAt?.toISOString() ?? null,
    createdAt: account.createdAt.toISOString(),
  };
}

export function registerAccountsCommands(program: Command): void {
  const accounts = program.command('accounts').description('register, update, disable and list exchange accounts');

  accounts
    .command('add')
    .description(
      `register an exchange account; the secret key and passphrase are prompted, or read from ${ACCOUNT_SECRET_VARIABLE} and ${ACCOUNT_PASSPHRASE_VARIABLE}, checked with one signed read and stored encrypted`,
    )
    .requiredOption('--name <name>', 'a short name for the account, used by every other command')
    .requiredOption('--base-url <url>', 'the exchange API base URL')
    .requiredOption('--api-key <key>', 'the API key of the main account')
    .requiredOption('--uid <uid>', 'the user id of the main account')
    .option('--broker', 'the account is a broker parent (enables broker sub-account transfers)')
    .option('--uta', 'the account is a unified trading account')
    .option('--no-verify', 'store the credentials without asking the exchange whether they work')
    .action((options: AddOptions) =>
      runTool(
        async (config) => {
          const fields = {
            name: options.name,
            baseUrl: options.baseUrl,
            apiKey: options.apiKey,
            uid: options.uid,
            isBrokerParent: options.broker ?? false,
            isUnifiedAccount: options.uta ?? false,
          };
          // Check what was typed before asking for secrets.
          parseAccountInput({ ...fields, secretKey: '-', passphrase: '-' });
          const env = accountSecretsFromEnv();
          const secretKey = await secret('secretKey', ACCOUNT_SECRET_VARIABLE, env.secretKey);
          const passphrase = await secret('passphrase', ACCOUNT_PASSPHRASE_VARIABLE, env.passphrase);
          const account = await withAccounts(config, options.verify, (service, verify) =>
            service.add({ ...fields, secretKey, passphrase }, { verify }),
          );
          console.log(`registered account ${account.name} (uid ${account.uid}, key ${account.apiKey})`);
        },
        { needs: options.verify ? ['postgres', 'redis'] : ['postgres'] },
      ),
    );

  accounts
    .command('update')
    .description(
      `change an account's base URL, API key, secret key, passphrase or flags; new secrets are prompted or read from ${ACCOUNT_SECRET_VARIABLE} and ${ACCOUNT_PASSPHRASE_VARIABLE}; checked with one signed read before saving`,
    )
    .argument('<name>', 'the account name')
    .option('--base-url <url>', 'a new exchange API base URL')
    .option('--api-key <key>', 'a new API key (its secret key and passphrase are asked for too)')
    .option('--uid <uid>', 'a new user id of the main account')
    .option('--secret-key', 'rotate the secret key')
    .option('--passphrase', 'rotate the passphrase')
    .option('--broker', 'the account is a broker parent')
    .option('--no-broker', 'the account is not a broker parent')
    .option('--uta', 'the account is a unified trading account')
    .option('--no-uta', 'the account is not a unified trading account')
    .option('--no-verify', 'store the change without asking the exchange whether the credentials work')
    .action((name: string, options: UpdateOptions) =>
      runTool(
        async (config) => {
          const changes: AccountUpdate = {
            baseUrl: options.baseUrl,
            apiKey: options.apiKey,
            uid: options.uid,
            isBrokerParent: options.broker,
            isUnifiedAccount: options.uta,
          };
          if (Object.values(changes).every((v) => v === undefined) && !options.secretKey && !options.passphrase) {
            throw new ValidationError(
              'update',
              'names nothing to change: give --base-url, --api-key, --uid, --secret-key, --passphrase, --broker or --uta',
            );
          }
          // Check what was typed before asking for secrets (placeholders stand in for what is kept).
          const given = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
          parseAccountInput({
            name,
            baseUrl: 'https://placeholder.example',
            apiKey: '-',
            uid: '1',
            secretKey: '-',
            passphrase: '-',
            ...given,
          });
          // A new key comes with its own secret and passphrase: keeping the old ones would never sign.
          const env = accountSecretsFromEnv();
          if (options.secretKey || options.apiKey)
            changes.secretKey = await secret('secretKey', ACCOUNT_SECRET_VARIABLE, env.secretKey);
          if (options.passphrase || options.apiKey)
            changes.passphrase = await secret('passphrase', ACCOUNT_PASSPHRASE_VARIABLE, env.passphrase);
          const account = await withAccounts(config, options.verify, (service, verify) =>
            service.update(name, changes, { verify }),
          );
          const what = Object.entries({ ...changes })
            .filter(([, value]) => value !== undefined)
            .map(([field]) => field);
          console.log(`updated account ${account.name}: ${what.join(', ')} (key ${account.apiKey})`);
        },
        { needs: options.verify ? ['postgres', 'redis'] : ['postgres'] },
      ),
    );

  for (const [command, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    accounts
      .command(command)
      .description(
        disabled
          ? 'leave an account out of the nightly run; its history stays stored and in reports'
          : 'include a disabled account in the nightly run again',
      )
      .argument('<name>', 'the account name')
      .action((name: string) =>
        runTool(
          async (config) => {
            const account = await withAccounts(config, false, (service) => service.setDisabled(name, disabled));
            console.log(`account ${account.name}: ${lifecycle(account)}`);
          },
          { needs: ['postgres'] },
        ),
      );
  }

  accounts
    .command('list')
    .description('list registered accounts (API keys masked, secrets never shown)')
    .option('--json', 'print one JSON object {accounts: [...]} instead of the table')
    .action((options: { json?: boolean }) =>
      runTool(
        async (config) => {
          const list = await withAccounts(config, false, (service) => service.list());
          if (options.json) {
            printJson({ accounts: list.map(accountJson) });
            return;
          }
          if (list.length === 0) {
            console.log('no accounts registered (add one with: ledgerline accounts add)');
            return;
          }
          console.log(
            plainTable(
              list.map((a) => ({
                NAME: a.name,
                UID: a.uid,
                'BASE URL': a.baseUrl,
                'API KEY': a.apiKey,
                BROKER: a.isBrokerParent ? 'yes' : 'no',
                UTA: a.isUnifiedAccount ? 'yes' : 'no',
                STATE: a.disabledAt ? 'disabled' : 'enabled',
              })),
            ),
          );
        },
        { needs: ['postgres'] },
      ),
    );

  accounts
    .command('remove')
    .description('remove an account that has no stored history, management records or reconciliation reports')
    .argument('<name>', 'the account name')
    .action((name: string) =>
      runTool(
        async (config) => {
          await withAccounts(config, false, (service) => service.remove(name));
          console.log(`removed account ${name}`);
        },
        { needs: ['postgres'] },
      ),
    );
}
