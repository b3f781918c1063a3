import { writeFile } from 'node:fs/promises';
import path from 'node:path';

import { DateTime } from 'luxon';
import type pg from 'pg';

import { importPrices } from '../accounting/prices/import-prices.ts';

/** The source name of the demo's fiat series: synthetic, and named so in the price table. */
export const SYNTHETIC_FIAT_SOURCE = 'synthetic-demo-fiat';

/** Base rates of the synthetic series (1 USDT in pounds and euros), roughly today's order of size. */
const BASE: Readonly<Record<string, number>> = { GBP: 0.79, EUR: 0.92 };

/**
 * A SYNTHETIC daily USDT->GBP and USDT->EUR series, deterministic in the date (a gentle wave around
 * a base rate, 4 decimal places), in the columns `ledgerline prices import` takes for a daily fiat
 * series: date,base,quote,price. It stands in for the series an accountant downloads (docs/reports.md,
 * "Valuation in the filing currency"); it is no market data and says so in its file name and source.
 */
export function syntheticFiatCsv(from: DateTime, to: DateTime): string {
  const lines = ['date,base,quote,price'];
  for (let day = from.startOf('day'); day <= to; day = day.plus({ days: 1 })) {
    const wave = Math.sin(day.toMillis() / 86_400_000 / 29);
    for (const [quote, base] of Object.entries(BASE)) {
      lines.push(`${day.toISODate()},USDT,${quote},${(base + 0.02 * wave).toFixed(4)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Writes the synthetic series to EXPORT_DIR and imports it as `prices import --file` would. */
export async function loadSyntheticFiat(pool: pg.Pool, exportDir: string, from: DateTime, to: DateTime) {
  const file = path.join(exportDir, 'demo-fiat-synthetic.csv');
  await writeFile(file, syntheticFiatCsv(from.minus({ days: 1 }), to));
  const client = await pool.connect();
  try {
    const result = await importPrices(client, file, { source: SYNTHETIC_FIAT_SOURCE });
    return { file, rows: result.rows };
  } finally {
    client.release();
  }
}
