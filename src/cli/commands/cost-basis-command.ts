import type { Command } from 'commander';
import pg from 'pg';

import { importCostBasis, listCostBasisImports } from '../../accounting/cost-basis/cost-basis-import.ts';
import { openClient } from '../../db/pg-connections.ts';
import { ValidationError } from '../../errors/index.ts';
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

/** `ledgerline cost-basis import|list`: docs/reports.md, "Unknown cost". */
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
          const { result, imports } = await withClient(config.databaseUrl, async (client) => {
            const id = await accountId(client, options.account);
            const result = await importCostBasis(client, id, options.file);
            return { result, imports: await listCostBasisImports(client, id) };
          });
          if (options.json) console.log(JSON.stringify({ ...result, imports }));
          else {
            console.log(
              result.alreadyImported
                ? `${result.rows} rows: this file was imported before (import ${result.importId}); nothing written`
                : `${result.rows} rows: ${result.inserted} lots added (import ${result.importId})`,
            );
            for (const i of imports)
              console.log(`  import ${i.id} ${i.importedAt} ${i.fileName}: ${i.lots} lots from ${i.sources}`);
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
          else
            for (const i of imports)
              console.log(`import ${i.id} ${i.importedAt} ${i.fileName}: ${i.lots} lots from ${i.sources}`);
        },
        { needs: ['postgres'] },
      ),
    );
}
