import { userInfo } from 'node:os';

import type { Command } from 'commander';

import {
  importAwayDecisions,
  listAwayDecisionImports,
  withdrawAwayDecisions,
} from '../../accounting/cost-basis/away-decision-import.ts';
import { coinsAway } from '../../accounting/gains/coins-away.ts';
import { ValidationError } from '../../errors/index.ts';
import { runTool } from '../run-tool.ts';
import { accountId, withClient } from './cost-basis-command.ts';

const APPLICATION = 'ledgerline-away-decision';

/** Who supplies a figure from the CLI: `cli:<OS user>` (the supplied-figure design). */
function cliUser(): string {
  return `cli:${userInfo().username || 'unknown'}`;
}

function parseDays(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d{1,4}$/.test(value) || Number(value) < 1 || Number(value) > 3660)
    throw new ValidationError('--days', 'must be a whole number of days from 1 to 3660', value);
  return Number(value);
}

/** `ledgerline away-decision list|import|imports|withdraw`: docs/reports.md, "Coins away". */
export function registerAwayDecisionCommands(program: Command): void {
  const away = program
    .command('away-decision')
    .description('coins moved to a strategy, Earn or a lock that have not come back: the accountant decides');

  away
    .command('list')
    .description('moves away not back after COINS_AWAY_DAYS days, each with the decision in effect (if any)')
    .option('--account <name>', 'the account (default: the only one)')
    .option('--days <n>', 'flag after this many days (default COINS_AWAY_DAYS)')
    .option('--json', 'one JSON object on stdout: { days, moves: [...] }')
    .action((options: { account?: string; days?: string; json?: boolean }) =>
      runTool(
        async (config) => {
          const days = parseDays(options.days, config.valuation.coinsAwayDays);
          const moves = await withClient(
            config.databaseUrl,
            async (client) => coinsAway(client, await accountId(client, options.account), new Date(), { days }),
            APPLICATION,
          );
          if (options.json) console.log(JSON.stringify({ days, moves }));
          else if (moves.length === 0) console.log(`no coins away longer than ${days} days`);
          else
            for (const m of moves)
              console.log(
                `${m.recordId}  ${m.movedAt}  ${m.quantity} ${m.coin} away ${m.daysAway} days (${m.spotTaxType})  ${
                  m.decision
                    ? `${m.decision.decision} at ${m.decision.decidedAt} (import ${m.decision.importId})`
                    : 'UNDECIDED'
                }`,
              );
        },
        { needs: ['postgres'] },
      ),
    );

  away
    .command('import')
    .description(
      'import decisions from a CSV file (record_id, coin, quantity, decision held|lost, decided_at, source, note); all rows or none; idempotent',
    )
    .requiredOption('--file <path>', 'the CSV file')
    .option('--account <name>', 'the account the moves belong to (default: the only one)')
    .option('--json', 'one JSON object on stdout: { importId, rows, inserted, alreadyImported, imports }')
    .action((options: { file: string; account?: string; json?: boolean }) =>
      runTool(
        async (config) => {
          const { result, imports } = await withClient(
            config.databaseUrl,
            async (client) => {
              const id = await accountId(client, options.account);
              const result = await importAwayDecisions(client, id, options.file, cliUser());
              return { result, imports: await listAwayDecisionImports(client, id) };
            },
            APPLICATION,
          );
          if (options.json) console.log(JSON.stringify({ ...result, imports }));
          else
            console.log(
              result.alreadyImported
                ? `${result.rows} rows: this file was imported before (import ${result.importId}); nothing written`
                : `${result.rows} rows: ${result.inserted} decisions recorded (import ${result.importId})`,
            );
        },
        { needs: ['postgres'] },
      ),
    );

  away
    .command('imports')
    .description('every decisions import of the account: who supplied it, from what, when, and any withdrawal')
    .option('--account <name>', 'the account (default: the only one)')
    .option('--json', 'one JSON object on stdout: { imports: [...] }')
    .action((options: { account?: string; json?: boolean }) =>
      runTool(
        async (config) => {
          const imports = await withClient(
            config.databaseUrl,
            async (client) => listAwayDecisionImports(client, await accountId(client, options.account)),
            APPLICATION,
          );
          if (options.json) console.log(JSON.stringify({ imports }));
          else if (imports.length === 0)
            console.log('no decisions imported (ledgerline away-decision import --file F)');
          else
            for (const i of imports)
              console.log(
                `import ${i.id} ${i.importedAt} ${i.fileName} by ${i.suppliedBy}: ${i.decisions} decisions from ${i.sources}${
                  i.withdrawnAt ? `; WITHDRAWN ${i.withdrawnAt} by ${i.withdrawnBy}: ${i.withdrawnReason}` : ''
                }`,
              );
        },
        { needs: ['postgres'] },
      ),
    );

  away
    .command('withdraw')
    .description('withdraw an import: its decisions stop counting (kept and logged, never deleted)')
    .requiredOption('--import <id>', 'the import to withdraw')
    .requiredOption('--reason <text>', 'why')
    .option('--account <name>', 'the account (default: the only one)')
    .action((options: { import: string; reason: string; account?: string }) =>
      runTool(
        async (config) => {
          await withClient(
            config.databaseUrl,
            async (client) =>
              withdrawAwayDecisions(
                client,
                await accountId(client, options.account),
                options.import,
                cliUser(),
                options.reason,
              ),
            APPLICATION,
          );
          console.log(`import ${options.import} withdrawn`);
        },
        { needs: ['postgres'] },
      ),
    );
}
