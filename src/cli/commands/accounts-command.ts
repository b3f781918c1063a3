import type { Command } from 'commander';

import { parseAccountInput } from '../../accounts/account-input.ts';
import { AccountService } from '../../accounts/account-service.ts';
import {
  ACCOUNT_PASSPHRASE_VARIABLE,
  ACCOUNT_SECRET_VARIABLE,
  accountSecretsFromEnv,
} from '../../config/account-secrets-env.ts';
import { ValidationError } from '../../errors/index.ts';
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
}

async function secret(label: string, variable: string, fromEnv: string | undefined): Promise<string> {
  const value = fromEnv ?? (await promptSecret(`${label}: `));
  if (!value) throw new ValidationError(label, `is required: set ${variable} or run in a terminal to be prompted`);
  return value;
}

export function registerAccountsCommands(program: Command): void {
  const accounts = program.command('accounts').description('register and list exchange accounts');

  accounts
    .command('add')
    .description(
      `register an exchange account; the secret key and passphrase are prompted, or read from ${ACCOUNT_SECRET_VARIABLE} and ${ACCOUNT_PASSPHRASE_VARIABLE}, and stored encrypted`,
    )
    .requiredOption('--name <name>', 'a short name for the account, used by every other command')
    .requiredOption('--base-url <url>', 'the exchange API base URL')
    .requiredOption('--api-key <key>', 'the API key of the main account')
    .requiredOption('--uid <uid>', 'the user id of the main account')
    .option('--broker', 'the account is a broker parent (enables broker sub-account transfers)')
    .option('--uta', 'the account is a unified trading account')
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
          const account = await withPrisma(config, (prisma) =>
            new AccountService(prisma, config.masterKey).add({ ...fields, secretKey, passphrase }),
          );
          console.log(`registered account ${account.name} (uid ${account.uid}, key ${account.apiKey})`);
        },
        { needs: ['postgres'] },
      ),
    );

  accounts
    .command('list')
    .description('list registered accounts (API keys masked, secrets never shown)')
    .action(() =>
      runTool(
        async (config) => {
          const list = await withPrisma(config, (prisma) => new AccountService(prisma, config.masterKey).list());
          if (list.length === 0) {
            console.log('no accounts registered (add one with: ledgerline accounts add)');
            return;
          }
          console.table(
            list.map((a) => ({
              name: a.name,
              uid: a.uid,
              'base url': a.baseUrl,
              'api key': a.apiKey,
              broker: a.isBrokerParent ? 'yes' : 'no',
              uta: a.isUnifiedAccount ? 'yes' : 'no',
            })),
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
          await withPrisma(config, (prisma) => new AccountService(prisma, config.masterKey).remove(name));
          console.log(`removed account ${name}`);
        },
        { needs: ['postgres'] },
      ),
    );
}
