import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Decimal } from 'decimal.js';
import { DateTime } from 'luxon';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openPriceBook } from '../../src/accounting/prices/open-price-book.ts';
import { loadDemoPrices } from '../../src/demo/demo-prices.ts';
import { insertAccount } from '../export/seed.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const db = useTestDatabase('demoprices');
let pool: pg.Pool;
let dir: string;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  dir = await mkdtemp(path.join(tmpdir(), 'demo-prices-'));
});
afterAll(async () => {
  await pool.end();
  await rm(dir, { recursive: true, force: true });
});

describe("the demo's prices", () => {
  it('imports a daily close per coin from the day before the history, so its first records are priced', async () => {
    const accountId = await insertAccount(db.url, 'demo-prices');
    const from = DateTime.fromISO('2026-01-01T08:00:00Z', { zone: 'utc' });
    const to = DateTime.fromISO('2026-01-10T00:00:00Z', { zone: 'utc' });
    const prices = await loadDemoPrices(pool, dir, accountId, from, to);
    // 2025-12-31 .. 2026-01-10: 11 days x 7 coins quoted in USDT (USDC among them: issue 42 item 3).
    expect(prices.imported).toBe(77);
    expect((await readFile(prices.file, 'utf8')).split('\n')[0]).toBe('date,base,quote,price');
    // Re-runnable: the same file imports again without a change.
    expect((await loadDemoPrices(pool, dir, accountId, from, to)).imported).toBe(77);

    const client = await pool.connect();
    try {
      const book = await openPriceBook(client, { accountId, currency: 'USDT', toleranceMs: 36 * 3_600_000 });
      const first = await book.value('BTC', new Decimal('0.5'), from.toJSDate());
      expect(first?.value.toFixed()).toBe('40000');
      expect(first?.source).toBe('import:simulator');
      await book.close();
    } finally {
      client.release();
    }
  });
});
