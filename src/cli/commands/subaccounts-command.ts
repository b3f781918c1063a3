import type { Command } from 'commander';

import { AccountService } from '../../accounts/account-service.ts';
import { ValidationError } from '../../errors/index.ts';
import type { BatchCreateItem } from '../../management/action-input.ts';
import { MAX_SUB_ACCOUNTS } from '../../management/limits.ts';
import { type ActionCommandOptions, actionOptions, runActionCommand } from '../management/action-command.ts';
import { parseList, readLines } from '../management/cli-input.ts';
import { withPassphrase } from '../management/passphrase.ts';
import { runTool } from '../run-tool.ts';
import { withPrisma } from '../with-prisma.ts';

interface CreateOptions extends ActionCommandOptions {
  username: string;
  note?: string;
}

interface BatchOptions extends ActionCommandOptions {
  names?: string;
  namesFile?: string;
  label?: string;
  perms: string;
  ips?: string;
}

async function batchNames(options: BatchOptions): Promise<string[]> {
  if ((options.names === undefined) === (options.namesFile === undefined)) {
    throw new ValidationError('--names', 'give exactly one of --names and --names-file');
  }
  if (options.names !== undefined) return parseList('--names', options.names) ?? [];
  return (await readLines('--names-file', options.namesFile!)).map(({ value }) => value);
}

export function registerSubaccountsCommands(program: Command): void {
  const subaccounts = program
    .command('subaccounts')
    .description('create virtual sub-accounts (audited jobs) and list the local mirror');

  actionOptions(
    subaccounts
      .command('create')
      .description('create one unified virtual sub-account (create-sub v3) and wait for the outcome')
      .requiredOption('--username <name>', '1-20 lowercase letters; the exchange makes the virtual e-mail from it')
      .option('--note <text>', 'at most 50 characters'),
  ).action((options: CreateOptions) =>
    runTool((config) =>
      runActionCommand(
        config,
        {
          command: 'subaccount_create',
          params: { username: options.username, ...(options.note === undefined ? {} : { note: options.note }) },
        },
        options,
      ),
    ),
  );

  actionOptions(
    subaccounts
      .command('batch-create')
      .description(
        "create any number of virtual sub-accounts, each with an API key (requests of at most 5, one per second); the keys' passphrase is prompted or read from LEDGERLINE_SUBKEY_PASSPHRASE",
      )
      .option('--names <list>', 'comma-separated names, each exactly 8 English letters')
      .option('--names-file <file>', 'one name per line instead')
      .option('--label <text>', 'note of every key, 1-20 characters (default: the sub-account name)')
      .requiredOption('--perms <list>', 'key permissions: spot_trade, margin_trade, contract_trade, read (or none)')
      .option('--ips <list>', 'IP whitelist of every key, at most 30 addresses'),
  ).action((options: BatchOptions) =>
    runTool(async (config) => {
      const names = await batchNames(options);
      const permList = parseList('--perms', options.perms) as BatchCreateItem['permList'];
      const ipList = parseList('--ips', options.ips);
      const input = await withPassphrase(
        (passphrase) => ({
          command: 'subaccount_batch_create',
          params: {
            items: names.map((name) => ({
              subAccountName: name,
              passphrase,
              label: options.label ?? name,
              permList,
              ...(ipList === undefined ? {} : { ipList }),
            })),
          },
        }),
        options.dryRun,
      );
      await runActionCommand(config, input, options);
    }),
  );

  subaccounts
    .command('list')
    .description('list the sub-accounts the local mirror knows of (no endpoint of the exchange lists them)')
    .requiredOption('--account <name>', 'a registered account')
    .action((options: { account: string }) =>
      runTool(
        (config) =>
          withPrisma(config, async (prisma) => {
            const account = await new AccountService(prisma, config.masterKey).get(options.account);
            const subs = await prisma.subAccount.findMany({
              where: { accountId: account.id },
              orderBy: { createdAt: 'asc' },
            });
            if (subs.length === 0) {
              console.log('no sub-accounts in the local mirror');
              return;
            }
            const keys = await prisma.subAccountApiKey.groupBy({
              by: ['subAccountUid'],
              where: { accountId: account.id },
              _count: { _all: true },
            });
            const keyCount = new Map(keys.map((k) => [k.subAccountUid, k._count._all]));
            console.table(
              subs.map((s) => ({
                uid: s.subUid ?? '(unknown: answer lost)',
                name: s.name ?? '',
                email: s.email ?? '',
                status: s.status ?? '',
                source: s.source,
                keys: (s.subUid ? (keyCount.get(s.subUid) ?? 0) : 0) + s.keysWithoutId,
                note: s.note ?? '',
              })),
            );
            console.log(`${subs.length} of at most ${MAX_SUB_ACCOUNTS} sub-accounts`);
          }),
        { needs: ['postgres'] },
      ),
    );
}
