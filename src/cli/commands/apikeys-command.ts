import type { Command } from 'commander';

import { AccountService } from '../../accounts/account-service.ts';
import { SecretBox } from '../../crypto/secret-box.ts';
import { ValidationError } from '../../errors/index.ts';
import type { CreateVirtualSubaccountApiKeyParams } from '../../exchange/index.ts';
import { revealSecret } from '../../management/mirror-store.ts';
import { type ActionCommandOptions, actionOptions, runActionCommand } from '../management/action-command.ts';
import { parseList } from '../management/cli-input.ts';
import { withPassphrase } from '../management/passphrase.ts';
import { runTool } from '../run-tool.ts';
import { withPrisma } from '../with-prisma.ts';

type PermList = CreateVirtualSubaccountApiKeyParams['permList'];

interface CreateOptions extends ActionCommandOptions {
  subUid: string;
  label: string;
  perms: string;
  ips?: string;
}

interface ModifyOptions extends ActionCommandOptions {
  subUid: string;
  apiKey: string;
  label: string;
  perms?: string;
  ips?: string;
}

const PASSPHRASE_NOTE = 'the passphrase is prompted or read from LEDGERLINE_SUBKEY_PASSPHRASE';

export function registerApikeysCommands(program: Command): void {
  const apikeys = program
    .command('apikeys')
    .description('create and modify virtual sub-account API keys (audited jobs); list the mirror; show a secret once');

  actionOptions(
    apikeys
      .command('create')
      .description(`create an API key on a virtual sub-account and wait for the outcome; ${PASSPHRASE_NOTE}`)
      .requiredOption('--sub-uid <uid>', 'the sub-account uid')
      .requiredOption('--label <text>', 'note of the key, 1-20 characters')
      .requiredOption(
        '--perms <list>',
        'spot_trade, margin_trade, contract_trade, transfer, read (comma-separated, or none)',
      )
      .option('--ips <list>', 'IP whitelist, at most 30 addresses (absent: empty whitelist)'),
  ).action((options: CreateOptions) =>
    runTool(async (config) => {
      const permList = parseList('--perms', options.perms) as PermList;
      const ipList = parseList('--ips', options.ips);
      const input = await withPassphrase(
        (passphrase) => ({
          command: 'apikey_create',
          params: {
            subAccountUid: options.subUid,
            passphrase,
            label: options.label,
            permList,
            ...(ipList === undefined ? {} : { ipList }),
          },
        }),
        options.dryRun,
      );
      await runActionCommand(config, input, options);
    }),
  );

  actionOptions(
    apikeys
      .command('modify')
      .description(`modify a virtual sub-account API key and wait for the outcome; ${PASSPHRASE_NOTE} (the key's own)`)
      .requiredOption('--sub-uid <uid>', 'the sub-account uid')
      .requiredOption('--api-key <key>', 'the API key to modify')
      .requiredOption('--label <text>', 'note of the key, 1-20 characters')
      .option('--perms <list>', 'new permissions; absent keeps them, none removes them all')
      .option('--ips <list>', 'the whole new IP whitelist, or none (required: the exchange empties it when absent)'),
  ).action((options: ModifyOptions) =>
    runTool(async (config) => {
      if (options.ips === undefined) {
        throw new ValidationError(
          '--ips',
          'is required: the exchange empties the whitelist when it is not sent; give the full list, or none to empty it',
        );
      }
      const permList = parseList('--perms', options.perms) as PermList | undefined;
      const ipList = parseList('--ips', options.ips);
      const input = await withPassphrase(
        (passphrase) => ({
          command: 'apikey_modify',
          params: {
            subAccountUid: options.subUid,
            subAccountApiKey: options.apiKey,
            passphrase,
            label: options.label,
            ...(ipList === undefined ? {} : { ipList }),
            ...(permList === undefined ? {} : { permList }),
          },
        }),
        options.dryRun,
      );
      await runActionCommand(config, input, options);
    }),
  );

  apikeys
    .command('list')
    .description('list the sub-account API keys the local mirror knows of (secrets never shown)')
    .requiredOption('--account <name>', 'a registered account')
    .option('--sub-uid <uid>', 'only the keys of this sub-account')
    .action((options: { account: string; subUid?: string }) =>
      runTool(
        (config) =>
          withPrisma(config, async (prisma) => {
            const account = await new AccountService(prisma, config.masterKey).get(options.account);
            const keys = await prisma.subAccountApiKey.findMany({
              where: { accountId: account.id, ...(options.subUid ? { subAccountUid: options.subUid } : {}) },
              orderBy: { createdAt: 'asc' },
            });
            if (keys.length === 0) {
              console.log('no API keys in the local mirror');
              return;
            }
            console.table(
              keys.map((k) => ({
                'sub uid': k.subAccountUid,
                'api key': k.apiKey,
                label: k.label,
                perms: k.permList.join(',') || '(none)',
                ips: k.ipList.join(',') || '(none)',
                secret: k.secretEnc
                  ? 'stored, not yet shown'
                  : k.secretRevealedAt
                    ? `shown ${k.secretRevealedAt.toISOString()}`
                    : 'not held',
              })),
            );
          }),
        { needs: ['postgres'] },
      ),
    );

  apikeys
    .command('show-secret')
    .description('print the secret key of a key ledgerline created, ONCE: it is then erased from the database')
    .argument('<apiKey>', 'the API key')
    .requiredOption('--account <name>', 'a registered account')
    .action((apiKey: string, options: { account: string }) =>
      runTool(
        (config) =>
          withPrisma(config, async (prisma) => {
            const account = await new AccountService(prisma, config.masterKey).get(options.account);
            const secret = await revealSecret(prisma, new SecretBox(config.masterKey), account.id, apiKey);
            process.stderr.write(`secret key of ${apiKey} (shown once; it is no longer stored):\n`);
            process.stdout.write(`${secret}\n`);
          }),
        { needs: ['postgres'] },
      ),
    );
}
