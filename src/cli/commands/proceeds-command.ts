import type { Command } from 'commander';

import { importProceeds, listProceedsImports } from '../../accounting/proceeds/proceeds-import.ts';
import { runTool } from '../run-tool.ts';
import { accountId, withClient } from './cost-basis-command.ts';

const APPLICATION = 'ledgerline-proceeds';

/** `ledgerline proceeds import|list`: docs/reports.md, "Unknown proceeds". */
export function registerProceedsCommands(program: Command): void {
  const proceeds = program
    .command('proceeds')
    .description('proceeds of P2P sells (the records state no fiat amount), supplied by the owner');

  proceeds
    .command('import')
    .description(
      'import supplied proceeds from a CSV file (record_id, proceeds, currency, source, note); all rows or none; idempotent',
    )
    .requiredOption('--file <path>', 'the CSV file')
    .option('--account <name>', 'the account the sales belong to (default: the only one)')
    .option('--json', 'one JSON object on stdout: { importId, rows, inserted, alreadyImported, imports }')
    .action((options: { file: string; account?: string; json?: boolean }) =>
      runTool(
        async (config) => {
          const { result, imports } = await withClient(
            config.databaseUrl,
            async (client) => {
              const id = await accountId(client, options.account);
              const result = await importProceeds(client, id, options.file);
              return { result, imports: await listProceedsImports(client, id) };
            },
            APPLICATION,
          );
          if (options.json) console.log(JSON.stringify({ ...result, imports }));
          else {
            console.log(
              result.alreadyImported
                ? `${result.rows} rows: this file was imported before (import ${result.importId}); nothing written`
                : `${result.rows} rows: ${result.inserted} sales priced (import ${result.importId})`,
            );
            for (const i of imports)
              console.log(`  import ${i.id} ${i.importedAt} ${i.fileName}: ${i.sales} sales from ${i.sources}`);
          }
        },
        { needs: ['postgres'] },
      ),
    );

  proceeds
    .command('list')
    .description('every proceeds import of the account with its sources')
    .option('--account <name>', 'the account (default: the only one)')
    .option('--json', 'one JSON object on stdout: { imports: [...] }')
    .action((options: { account?: string; json?: boolean }) =>
      runTool(
        async (config) => {
          const imports = await withClient(
            config.databaseUrl,
            async (client) => listProceedsImports(client, await accountId(client, options.account)),
            APPLICATION,
          );
          if (options.json) console.log(JSON.stringify({ imports }));
          else if (imports.length === 0) console.log('no proceeds imports (ledgerline proceeds import --file F)');
          else
            for (const i of imports)
              console.log(`import ${i.id} ${i.importedAt} ${i.fileName}: ${i.sales} sales from ${i.sources}`);
        },
        { needs: ['postgres'] },
      ),
    );
}
