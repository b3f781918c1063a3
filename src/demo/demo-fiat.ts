import { mkdir, writeFile } from 'node:fs/promises';
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
 * a base rate, 4 decimal places), one currency a file, in the columns `ledgerline prices import`
 * takes for a daily fiat series: date,base,quote,price. It stands in for the series an accountant downloads (docs/reports.md,
 * "Valuation in the filing currency"); it is no market data and says so in its file name and source.
 */
export function syntheticFiatCsv(from: DateTime, to: DateTime, quote: string): string {
  const lines = ['date,base,quote,price'];
  for (let day = from.startOf('day'); day <= to; day = day.plus({ days: 1 })) {
    const wave = Math.sin(day.toMillis() / 86_400_000 / 29);
    lines.push(`${day.toISODate()},USDT,${quote},${(BASE[quote]! + 0.02 * wave).toFixed(4)}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The zone of each series' dates: a pound rate values the transactions of its London date
 * (`--method uk`), a euro rate those of its Berlin date (`--method de`).
 */
const ZONE_OF: Readonly<Record<string, string>> = { GBP: 'Europe/London', EUR: 'Europe/Berlin' };

/** Writes the synthetic series to EXPORT_DIR and imports each as `prices import --file --zone` would. */
export async function loadSyntheticFiat(pool: pg.Pool, exportDir: string, from: DateTime, to: DateTime) {
  await mkdir(exportDir, { recursive: true });
  const client = await pool.connect();
  try {
    let rows = 0;
    const files: string[] = [];
    for (const quote of Object.keys(BASE)) {
      const file = path.join(exportDir, `demo-fiat-synthetic-${quote.toLowerCase()}.csv`);
      await writeFile(file, syntheticFiatCsv(from.minus({ days: 1 }), to, quote));
      const result = await importPrices(client, file, { source: SYNTHETIC_FIAT_SOURCE, zone: ZONE_OF[quote] });
      rows += result.rows;
      files.push(file);
    }
    return { files, rows };
  } finally {
    client.release();
  }
}
