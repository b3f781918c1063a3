import type { Command } from 'commander';

import { currencyPrices, isoOr } from '../../accounting/cost-basis/supplied-currency.ts';
import { cliSupplier } from '../../accounting/cost-basis/supplied-file-import.ts';
import { withdrawSuppliedImport } from '../../accounting/cost-basis/supplied-withdrawal.ts';
import {
  importProceeds,
  listProceedsImports,
  type ProceedsImportListing,
} from '../../accounting/proceeds/proceeds-import.ts';
import { printable } from '../../vocabulary/printable-text.ts';
import { runTool } from '../run-tool.ts';
import { accountId, printingRowProblems, provenanceWords, withClient } from './cost-basis-command.ts';

const APPLICATION = 'ledgerline-proceeds';

const importLine = (i: ProceedsImportListing) =>
  `import ${i.id} ${printable(i.fileName)}: ${i.sales} sales in ${i.currencies || '-'} from ${i.sources}, ${provenanceWords(i)}`;

/** `ledgerline proceeds import|list|withdraw`: docs/reports.md, "Unknown proceeds". */
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
          const currencies = isoOr(config.valuation.currency);
          const { result, imports } = await printingRowProblems(() =>
            withClient(
              config.databaseUrl,
              async (client) => {
                const id = await accountId(client, options.account);
                const result = await importProceeds(client, id, options.file, currencies);
                return { result, imports: await listProceedsImports(client, id) };
              },
              APPLICATION,
            ),
          );
          if (options.json) console.log(JSON.stringify({ ...result, imports }));
          else {
            console.log(
              result.alreadyImported
                ? `${result.rows} rows: this file was imported before (import ${result.importId}); nothing written`
                : `${result.rows} rows: ${result.inserted} sales priced (import ${result.importId})`,
            );
            const mine = imports.find((i) => i.id === result.importId);
            for (const currency of (mine?.currencies ?? '').split(',').filter(Boolean))
              console.log(`  ${currencyPrices(currency)}`);
            for (const i of imports) console.log(`  ${importLine(i)}`);
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
          else for (const i of imports) console.log(importLine(i));
        },
        { needs: ['postgres'] },
      ),
    );

  proceeds
    .command('withdraw')
    .description(
      'withdraw one import (a logged decision: kept, marked with who, when and why; its figures count nowhere since)',
    )
    .requiredOption('--import <id>', 'the import number (proceeds list)')
    .requiredOption('--reason <text>', 'why (kept with the import and shown on the page)')
    .option('--account <name>', 'the account (default: the only one)')
    .action((options: { import: string; reason: string; account?: string }) =>
      runTool(
        async (config) => {
          const done = await withClient(
            config.databaseUrl,
            async (client) =>
              withdrawSuppliedImport(
                client,
                'proceeds_import',
                await accountId(client, options.account),
                options.import,
                cliSupplier(),
                options.reason,
              ),
            APPLICATION,
          );
          console.log(`import ${done.importId} withdrawn at ${done.withdrawnAt} by ${done.withdrawnBy}`);
        },
        { needs: ['postgres'] },
      ),
    );
}
