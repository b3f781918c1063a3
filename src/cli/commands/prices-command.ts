import type { Command } from 'commander';
import pg from 'pg';

import { coinSources, withoutSource } from '../../accounting/prices/coin-sources.ts';
import { importPrices, type PricePeriod } from '../../accounting/prices/import-prices.ts';
import { listPrices } from '../../accounting/prices/list-prices.ts';
import { refreshTradePrices } from '../../accounting/prices/refresh-trade-prices.ts';
import { openClient } from '../../db/pg-connections.ts';
import { ValidationError } from '../../errors/index.ts';
import { parseInstant } from '../../ingest/time-arguments.ts';
import { EXIT } from '../exit-codes.ts';
import { runTool } from '../run-tool.ts';

const DEFAULT_LIMIT = 1000;

async function withClient<T>(databaseUrl: string, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = await openClient({ connectionString: databaseUrl, application_name: 'ledgerline-prices' });
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

async function accountsNamed(client: pg.Client, name: string | undefined): Promise<{ id: string; name: string }[]> {
  const { rows } = await client.query<{ id: string; name: string }>(
    'SELECT id, name FROM account WHERE $1::text IS NULL OR name = $1 ORDER BY name',
    [name ?? null],
  );
  if (name !== undefined && rows.length === 0) {
    throw new ValidationError('--account', 'must name a registered account', name);
  }
  return rows;
}

function parseLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LIMIT;
  if (!/^\d{1,6}$/.test(value)) throw new ValidationError('--limit', 'must be a whole number from 1 to 100000', value);
  return Number(value);
}

/** `ledgerline prices import|refresh|list|sources`: docs/reports.md, "Prices and valuation". */
export function registerPricesCommands(program: Command): void {
  const prices = program
    .command('prices')
    .description('the prices valuations use: imported market data and the prices implied by trades');

  prices
    .command('import')
    .description('import prices from a CSV file (header: time or date, base, quote, price, source); all rows or none')
    .requiredOption('--file <path>', 'the CSV file')
    .option('--source <name>', 'the source of rows without a source column, e.g. ecb or coingecko')
    .option(
      '--zone <tz>',
      'the zone of the date column: a rate values the transactions of its date there (Europe/London for --method uk, Europe/Berlin for de; default UTC)',
    )
    .option(
      '--period <period>',
      'daily (a date column of days, the default) or monthly (months, yyyy-MM: each values its calendar month)',
    )
    .option('--json', 'one JSON object on stdout: { rows, points, inserted, updated, unchanged }')
    .action((options: { file: string; source?: string; zone?: string; period?: string; json?: boolean }) =>
      runTool(
        async (config) => {
          const result = await withClient(config.databaseUrl, (client) =>
            importPrices(client, options.file, {
              source: options.source,
              zone: options.zone,
              period: options.period as PricePeriod | undefined,
            }),
          );
          if (options.json) console.log(JSON.stringify(result));
          else
            console.log(
              `${result.rows} rows${result.points !== result.rows ? ` (${result.points} daily points)` : ''}: ${result.inserted} imported, ${result.updated} updated, ${result.unchanged} unchanged`,
            );
        },
        { needs: ['postgres'] },
      ),
    );

  prices
    .command('refresh')
    .description("write the prices implied by an account's trades (every account by default); idempotent")
    .option('--account <name>', 'only this account')
    .option('--full', 're-pair the whole history (default: only the orders stored or changed since the last refresh)')
    .option('--json', 'one JSON object on stdout: { accounts: [{ account, inserted, updated, unchanged, removed }] }')
    .action((options: { account?: string; full?: boolean; json?: boolean }) =>
      runTool(
        async (config) => {
          const accounts = await withClient(config.databaseUrl, async (client) => {
            const results = [];
            for (const account of await accountsNamed(client, options.account)) {
              results.push({
                account: account.name,
                ...(await refreshTradePrices(client, account.id, { full: options.full ?? false })),
              });
            }
            return results;
          });
          if (options.json) console.log(JSON.stringify({ accounts }));
          else if (accounts.length === 0) console.log('no accounts registered');
          else
            for (const a of accounts)
              console.log(
                `${a.account}: ${a.inserted} new, ${a.updated} updated, ${a.unchanged} unchanged, ${a.removed} removed trade prices`,
              );
        },
        { needs: ['postgres'] },
      ),
    );

  prices
    .command('list')
    .description("price points in time order: imported ones, and with --account that account's trade prices")
    .option('--base <coin>', 'only this base coin')
    .option('--quote <coin>', 'only this quote coin')
    .option('--from <time>', 'from this time (date = 00:00 UTC, date-time with offset, or Unix ms), inclusive')
    .option('--to <time>', 'until this time, exclusive')
    .option('--account <name>', "also this account's trade prices")
    .option('--limit <n>', `at most this many points (default ${DEFAULT_LIMIT})`)
    .option('--json', 'one JSON object on stdout: { prices: [...] }')
    .action(
      (options: {
        base?: string;
        quote?: string;
        from?: string;
        to?: string;
        account?: string;
        limit?: string;
        json?: boolean;
      }) =>
        runTool(
          async (config) => {
            const limit = parseLimit(options.limit);
            const fromMs = options.from === undefined ? undefined : parseInstant('--from', options.from);
            const toMs = options.to === undefined ? undefined : parseInstant('--to', options.to);
            const rows = await withClient(config.databaseUrl, async (client) => {
              const account =
                options.account === undefined ? undefined : (await accountsNamed(client, options.account))[0];
              return listPrices(client, {
                base: options.base,
                quote: options.quote,
                fromMs,
                toMs,
                accountId: account?.id,
                limit,
              });
            });
            if (options.json) console.log(JSON.stringify({ prices: rows }));
            else if (rows.length === 0) console.log('no prices (ledgerline prices import --file F, or prices refresh)');
            else
              for (const row of rows)
                console.log(
                  `${row.time}  ${`${row.base}/${row.quote}`.padEnd(12)} ${row.price.padStart(24)}  ${row.source}${row.account ? ` (${row.account})` : ''}`,
                );
          },
          { needs: ['postgres'] },
        ),
    );

  prices
    .command('sources')
    .description(
      "every coin an account's records carry and the price sources naming it; exits 1 when a coin held has none",
    )
    .requiredOption('--account <name>', 'the account')
    .option('--valuation <currency>', 'the valuation currency, which needs no price (default VALUATION_CURRENCY)')
    .option('--json', 'one JSON object on stdout: { coins: [...], withoutSource: [...] }')
    .action((options: { account: string; valuation?: string; json?: boolean }) =>
      runTool(
        async (config) => {
          const coins = await withClient(config.databaseUrl, async (client) => {
            const account = (await accountsNamed(client, options.account))[0]!;
            return coinSources(client, account.id, options.valuation ?? config.valuation.currency);
          });
          const missing = withoutSource(coins);
          if (options.json) console.log(JSON.stringify({ coins, withoutSource: missing }));
          else {
            for (const c of coins)
              console.log(
                `${c.coin.padEnd(8)} ${
                  c.isCurrency
                    ? 'the valuation currency (par)'
                    : c.sources.length === 0
                      ? 'NO SOURCE: unpriced wherever it is valued (ledgerline prices import --file F)'
                      : `${c.sources.join(', ')}  ${c.firstPoint} .. ${c.lastPoint}`
                }`,
              );
            if (missing.length > 0) console.log(`coins held without any price source: ${missing.join(', ')}`);
          }
          if (missing.length > 0) process.exitCode = EXIT.failed;
        },
        { needs: ['postgres'] },
      ),
    );
}
