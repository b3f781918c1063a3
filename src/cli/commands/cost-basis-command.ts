import type { Command } from 'commander';
import pg from 'pg';

import {
  type CostBasisImportListing,
  importCostBasis,
  listCostBasisImports,
} from '../../accounting/cost-basis/cost-basis-import.ts';
import { currencyPrices, isoOr } from '../../accounting/cost-basis/supplied-currency.ts';
import { cliSupplier } from '../../accounting/cost-basis/supplied-file-import.ts';
import type { SuppliedProvenance } from '../../accounting/cost-basis/supplied-provenance.ts';
import { SuppliedRowsError } from '../../accounting/cost-basis/supplied-rows-error.ts';
import { withdrawSuppliedImport } from '../../accounting/cost-basis/supplied-withdrawal.ts';
import { openClient } from '../../db/pg-connections.ts';
import { ValidationError } from '../../errors/index.ts';
import { printable } from '../../vocabulary/printable-text.ts';
import { runTool } from '../run-tool.ts';

/** One connection for a command over the owner's supplied figures (cost-basis, proceeds). */
export async function withClient<T>(
  databaseUrl: string,
  body: (client: pg.Client) => Promise<T>,
  applicationName = 'ledgerline-cost-basis',
): Promise<T> {
  const client = await openClient({ connectionString: databaseUrl, application_name: applicationName });
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

/** The account named, or the only one registered when none is named. */
export async function accountId(client: pg.Client, name: string | undefined): Promise<string> {
  const { rows } = await client.query<{ id: string }>(
    'SELECT id FROM account WHERE $1::text IS NULL OR name = $1 ORDER BY name LIMIT 2',
    [name ?? null],
  );
  if (name !== undefined && rows.length === 0)
    throw new ValidationError('--account', 'must name a registered account', name);
  if (rows.length !== 1)
    throw new ValidationError('--account', 'is required when more or fewer than one account is registered');
  return rows[0]!.id;
}

/** How many bad rows' messages an import prints before counting the rest. */
const PRINTED_PROBLEMS = 200;

/**
 * Runs an import; a file with bad rows prints one line per bad row on stderr (then runTool its
 * one-line summary and exit code), so the owner fixes them all in one pass.
 */
export async function printingRowProblems<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof SuppliedRowsError && error.problems.length > 1) {
      for (const p of error.problems.slice(0, PRINTED_PROBLEMS)) process.stderr.write(`${printable(p.message)}\n`);
      const more = error.problems.length - PRINTED_PROBLEMS;
      if (more > 0) process.stderr.write(`... and ${more} more bad rows\n`);
    }
    throw error;
  }
}

/** An import's provenance in one line: who, when, and its withdrawal if any. */
export function provenanceWords(i: SuppliedProvenance): string {
  const withdrawn =
    i.withdrawnAt === null
      ? ''
      : ` WITHDRAWN ${i.withdrawnAt} by ${i.withdrawnBy}: ${printable(i.withdrawnReason ?? '')}`;
  return `supplied by ${i.suppliedBy} at ${i.importedAt}${withdrawn}`;
}

const importLine = (i: CostBasisImportListing) =>
  `import ${i.id} ${printable(i.fileName)}: ${i.lots} lots in ${i.currencies || '-'} from ${i.sources}, ${provenanceWords(i)}`;

/** `ledgerline cost-basis import|list|withdraw`: docs/reports.md, "Unknown cost". */
export function registerCostBasisCommands(program: Command): void {
  const costBasis = program
    .command('cost-basis')
    .description('costs and acquisition dates of coins moved in from outside (deposits), supplied by the owner');

  costBasis
    .command('import')
    .description(
      'import supplied costs from a CSV file (coin, quantity, acquired_at, cost, currency, source, note); all rows or none; idempotent',
    )
    .requiredOption('--file <path>', 'the CSV file')
    .option('--account <name>', 'the account the coins were moved into (default: the only one)')
    .option('--json', 'one JSON object on stdout: { importId, rows, inserted, alreadyImported, imports }')
    .action((options: { file: string; account?: string; json?: boolean }) =>
      runTool(
        async (config) => {
          const currencies = isoOr(config.valuation.currency);
          const { result, imports } = await printingRowProblems(() =>
            withClient(config.databaseUrl, async (client) => {
              const id = await accountId(client, options.account);
              const result = await importCostBasis(client, id, options.file, currencies);
              return { result, imports: await listCostBasisImports(client, id) };
            }),
          );
          if (options.json) console.log(JSON.stringify({ ...result, imports }));
          else {
            console.log(
              result.alreadyImported
                ? `${result.rows} rows: this file was imported before (import ${result.importId}); nothing written`
                : `${result.rows} rows: ${result.inserted} lots added (import ${result.importId})`,
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

  costBasis
    .command('list')
    .description('every cost-basis import of the account with its sources')
    .option('--account <name>', 'the account (default: the only one)')
    .option('--json', 'one JSON object on stdout: { imports: [...] }')
    .action((options: { account?: string; json?: boolean }) =>
      runTool(
        async (config) => {
          const imports = await withClient(config.databaseUrl, async (client) =>
            listCostBasisImports(client, await accountId(client, options.account)),
          );
          if (options.json) console.log(JSON.stringify({ imports }));
          else if (imports.length === 0) console.log('no cost-basis imports (ledgerline cost-basis import --file F)');
          else for (const i of imports) console.log(importLine(i));
        },
        { needs: ['postgres'] },
      ),
    );

  costBasis
    .command('withdraw')
    .description(
      'withdraw one import (a logged decision: kept, marked with who, when and why; its lots price nothing since)',
    )
    .requiredOption('--import <id>', 'the import number (cost-basis list)')
    .requiredOption('--reason <text>', 'why (kept with the import and shown on the page)')
    .option('--account <name>', 'the account (default: the only one)')
    .action((options: { import: string; reason: string; account?: string }) =>
      runTool(
        async (config) => {
          const done = await withClient(config.databaseUrl, async (client) =>
            withdrawSuppliedImport(
              client,
              'cost_basis_import',
              await accountId(client, options.account),
              options.import,
              cliSupplier(),
              options.reason,
            ),
          );
          console.log(`import ${done.importId} withdrawn at ${done.withdrawnAt} by ${done.withdrawnBy}`);
        },
        { needs: ['postgres'] },
      ),
    );
}
