import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import type { DateTime } from 'luxon';
import type pg from 'pg';

import { coinSources, withoutSource } from '../accounting/prices/coin-sources.ts';
import { importPrices } from '../accounting/prices/import-prices.ts';
import { refreshTradePrices } from '../accounting/prices/refresh-trade-prices.ts';
import { dailyClosesCsv } from '../simulator/data/reference-prices.ts';

export interface DemoPrices {
  /** The price file imported, as `ledgerline prices import --file` would take it. */
  file: string;
  imported: number;
  /** Points implied by the account's own trades. */
  tradePoints: number;
  /** Coins the account holds that no price source names (`ledgerline prices sources`): none expected. */
  withoutSource: string[];
}

/**
 * The demo's prices, from the two sources a user has: the simulator's daily closes written to a
 * CSV and imported exactly as `ledgerline prices import --file <it> --source simulator` would
 * (a user imports a vendor's closes the same way), and the prices implied by the account's own
 * trades, refreshed as the nightly sync does. Without the closes, records from before the first
 * trade of a coin (the opening deposits) would be unpriced in the gains, income and balance values.
 */
export async function loadDemoPrices(
  pool: pg.Pool,
  exportDir: string,
  accountId: string,
  from: DateTime,
  to: DateTime,
): Promise<DemoPrices> {
  const file = path.join(exportDir, 'demo-prices.csv');
  await mkdir(exportDir, { recursive: true });
  // The close of the day before the history starts values its very first records.
  await writeFile(file, dailyClosesCsv(from.minus({ days: 1 }).toISODate()!, to.toISODate()!));
  const client = await pool.connect();
  try {
    const imported = await importPrices(client, file, { source: 'simulator' });
    const refreshed = await refreshTradePrices(client, accountId);
    return {
      file,
      imported: imported.rows,
      tradePoints: refreshed.inserted + refreshed.updated + refreshed.unchanged,
      withoutSource: withoutSource(await coinSources(client, accountId, 'USDT')),
    };
  } finally {
    client.release();
  }
}
