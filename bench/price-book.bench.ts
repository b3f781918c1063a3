/**
 * Price book benchmark: openPriceBook walking 1,000,000 price points forwards (the price table's
 * `time` index, keyset pages of 2,000), valuing a coin every 10 minutes of the period, and the
 * heap after a full GC at each fifth of the walk: flat if the book keeps one point per pair.
 *
 * The points are seeded with one generate_series INSERT into a throwaway database dropped at the
 * end: one a minute from 2025-01-01 00:00 UTC, rotating over BTC, ETH, SOL, XRP and DOGE against
 * USDT (so each pair has a point every 5 minutes).
 *
 *   npm run bench:prices            (BENCH_PRICE_POINTS=200000 for a quick run)
 */
import { randomBytes } from 'node:crypto';

import { Decimal } from 'decimal.js';
import pg from 'pg';

import { openPriceBook } from '../src/accounting/prices/open-price-book.ts';
import { dropDatabase } from '../src/db/ensure-database.ts';
import { migrateDatabase } from '../src/db/migrations.ts';

const POINTS = Number(process.env.BENCH_PRICE_POINTS ?? 1_000_000);
const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const START = Date.UTC(2025, 0, 1);
const MINUTE = 60_000;
const STEP = 10 * MINUTE;

const url = new URL(SERVER_URL);
url.pathname = `/ll_bench_prices_${randomBytes(4).toString('hex')}`;
const databaseUrl = url.toString();

const heapMb = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

await migrateDatabase(databaseUrl);
const client = new pg.Client({ connectionString: databaseUrl });
await client.connect();
try {
  const seeded = performance.now();
  await client.query(
    `INSERT INTO price (time, base, quote, price, source, account_id)
     SELECT to_timestamp($1::bigint / 1000.0) + n * interval '1 minute', (ARRAY['BTC','ETH','SOL','XRP','DOGE'])[1 + n % 5],
            'USDT', (1000 + n % 997)::numeric / 7, 'bench', NULL
       FROM generate_series(0, $2::int - 1) AS n`,
    [START, POINTS],
  );
  await client.query('ANALYZE price');
  console.log(`seeded ${POINTS.toLocaleString('en')} points in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

  const book = await openPriceBook(client, {
    accountId: '00000000-0000-0000-0000-000000000000',
    currency: 'USDT',
    toleranceMs: 36 * 60 * MINUTE,
  });
  const end = START + POINTS * MINUTE;
  const lookupsTotal = Math.floor((end - START) / STEP);
  const checkpoints = new Set([1, 2, 3, 4, 5].map((k) => Math.floor((lookupsTotal * k) / 5)));
  const heapAfterGcMb: number[] = [heapMb()];
  const heap: string[] = [`start ${heapAfterGcMb[0]!.toFixed(1)} MB`];
  const quantity = new Decimal('0.123');
  let lookups = 0;
  let priced = 0;
  const started = performance.now();
  for (let ms = START + STEP; ms <= end; ms += STEP) {
    const valuation = await book.value(['BTC', 'ETH', 'SOL'][lookups % 3]!, quantity, new Date(ms));
    lookups += 1;
    if (valuation !== null) priced += 1;
    if (checkpoints.has(lookups)) {
      heapAfterGcMb.push(heapMb());
      heap.push(`${Math.round((lookups / lookupsTotal) * 100)}% ${heapAfterGcMb.at(-1)!.toFixed(1)} MB`);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  await book.close();
  console.log(
    `walked ${POINTS.toLocaleString('en')} points with ${lookups.toLocaleString('en')} lookups (${priced.toLocaleString('en')} priced) ` +
      `in ${seconds.toFixed(2)} s: ${Math.round(POINTS / seconds).toLocaleString('en')} points/s`,
  );
  console.log(
    `heap after GC: ${heap.join(', ')}${(globalThis as { gc?: unknown }).gc ? '' : ' (no --expose-gc: not collected)'}`,
  );
  console.log(
    JSON.stringify({
      points: POINTS,
      lookups,
      priced,
      seconds: Number(seconds.toFixed(3)),
      pointsPerSecond: Math.round(POINTS / seconds),
      heapAfterGcMb: heapAfterGcMb.map((mb) => Number(mb.toFixed(1))),
    }),
  );
} finally {
  await client.end();
  await dropDatabase(databaseUrl);
}
