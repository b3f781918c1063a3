/**
 * Realized-gains benchmark: the lot walk over 1,000,000 spot records, its speed and its memory.
 *
 * The records are seeded with one generate_series INSERT into a throwaway database (dropped at the
 * end), 864 ms apart from 2026-01-01 00:00 UTC, so every UTC day holds exactly 100,000: the period
 * 2026-01-01..01 walks 100k records, 01..10 walks 1M (realized gains always walk from the first
 * record). They are trades in blocks of ten orders of one coin (BTC, ETH, SOL in turn): four buys
 * against USDT (fee in the coin bought), four sells of exactly what those bought (fee in USDT), an
 * interest payment in the coin (income, priced) and a withdrawal of as much; beside them USDT
 * interest and fee records (nothing to value). The holdings stay small, as an account's do, while the history
 * grows: memory must then stay flat. Prices are an imported source with a point per coin per
 * minute (so the price book streams ~4,300 points a day beside the records).
 * Each export runs in a child process of its own, so the RSS it reports is the export's alone;
 * a last fifo run with a 48 MB V8 heap shows the walk's memory is bounded (RSS also measures how
 * lazily V8 collects while it may grow).
 *
 *   npm run bench:gains            (BENCH_GAINS_ROWS=200000 for a quick run)
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import pg from 'pg';

import { LOT_METHODS } from '../src/accounting/lots/lot-method.ts';
import { dropDatabase } from '../src/db/ensure-database.ts';
import { migrateDatabase } from '../src/db/migrations.ts';
import { parseExportRequest } from '../src/export/export-request.ts';
import { exportToFile } from '../src/export/export-to-file.ts';
import { runBenchChild } from './lib/bench-child.ts';

const ROWS_PER_DAY = 100_000;
const TOTAL_ROWS = Number(process.env.BENCH_GAINS_ROWS ?? 1_000_000);
const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

interface ChildResult {
  method: string;
  rows: number;
  review: Record<string, number>;
  sha256: string;
  ms: number;
  baselineRssMb: number;
  peakRssMb: number;
}

// ---------------------------------------------------------------------------- child: one export
async function child(): Promise<void> {
  const [databaseUrl, accountId, to, method, out] = process.argv.slice(3) as [string, string, string, string, string];
  const baselineRssMb = process.memoryUsage().rss / 2 ** 20;
  const request = parseExportRequest({
    report: 'realized-gains',
    accountId,
    from: '2026-01-01',
    to,
    tz: 'UTC',
    method,
  });
  const started = performance.now();
  const { manifest } = await exportToFile({
    databaseUrl,
    request,
    account: { id: accountId, name: 'bench' },
    csvPath: out,
    valuation: { currency: 'USDT', priceToleranceMs: 36 * 3_600_000 },
  });
  const ms = performance.now() - started;
  // maxRSS is the high-water mark of this process (kB), sampled by the kernel: nothing is missed.
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  const result: ChildResult = {
    method,
    rows: manifest.rowCount,
    review: manifest.review.values,
    sha256: manifest.sha256,
    ms,
    baselineRssMb,
    peakRssMb,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

// The proof that memory is flat: the whole walk fits in a V8 heap this small (RSS alone also
// measures how lazily V8 collects when it may grow).
const CAPPED_HEAP_MB = 48;

function exportInChild(
  databaseUrl: string,
  accountId: string,
  to: string,
  method: string,
  out: string,
  nodeFlags: string[] = [],
): Promise<ChildResult> {
  return runBenchChild<ChildResult>(import.meta.filename, [databaseUrl, accountId, to, method, out], nodeFlags);
}

// ---------------------------------------------------------------------------- parent
// Two records per k (legs 1 and 0); phase = k % 10 within a block of ten of one coin.
const SEED = `
  INSERT INTO spot_record (account_id, record_id, coin, spot_tax_type, amount, fee, balance, biz_order_id, ts, raw)
  SELECT $1::uuid, r.id, r.coin, r.type, r.amount, r.fee, 0, r.biz, r.ts,
         jsonb_build_object('id', r.id, 'coin', r.coin, 'spotTaxType', r.type, 'amount', r.amount::text,
           'fee', r.fee::text, 'bizOrderId', r.biz)
  FROM generate_series(1::bigint, $2::bigint) AS g
  CROSS JOIN LATERAL (SELECT (g + 1) / 2 AS k, g % 2 AS leg) AS a
  CROSS JOIN LATERAL (SELECT (ARRAY['BTC', 'ETH', 'SOL'])[1 + (k / 10) % 3] AS coin, k % 10 AS phase,
      round((ARRAY[60000, 3000, 150])[1 + (k / 10) % 3]::numeric
            * (1 + ((k * 7919) % 2001 - 1000)::numeric / 10000), 2) AS price,
      (ARRAY[0.01, 0.2, 5])[1 + (k / 10) % 3]::numeric * (1 + (k % 10) % 4) AS qty) AS b
  CROSS JOIN LATERAL (SELECT
      (1200000000000000000 + g)::text AS id,
      timestamptz '2026-01-01 00:00:00+00' + (g - 1) * interval '864 milliseconds' AS ts,
      CASE WHEN phase < 8 THEN (800000000000 + k)::text ELSE '' END AS biz,
      CASE WHEN phase < 4 AND leg = 1 THEN 'USDT' WHEN phase < 4 THEN coin
           WHEN phase < 8 AND leg = 1 THEN coin WHEN phase < 8 THEN 'USDT'
           WHEN leg = 1 THEN coin ELSE 'USDT' END AS coin,
      CASE WHEN phase < 4 THEN 'Buy' WHEN phase < 8 THEN 'Sell' WHEN phase = 8 THEN 'Interest'
           WHEN leg = 1 THEN 'Withdrawal' ELSE 'Transaction fee deduct' END AS type,
      CASE WHEN phase < 4 AND leg = 1 THEN -round(qty * price, 6) WHEN phase < 4 THEN qty
           WHEN phase < 8 AND leg = 1 THEN -(qty - qty / 1000) WHEN phase < 8 THEN round((qty - qty / 1000) * price, 6)
           WHEN phase = 8 AND leg = 1 THEN qty / 100 WHEN phase = 8 THEN 1
           WHEN leg = 1 THEN -qty / 100 ELSE 0 END AS amount,
      CASE WHEN phase < 4 AND leg = 0 THEN -(qty / 1000)
           WHEN phase BETWEEN 4 AND 7 AND leg = 0 THEN -round((qty - qty / 1000) * price / 1000, 6)
           WHEN phase = 9 AND leg = 0 THEN -0.1 ELSE 0 END AS fee) AS r`;

// One imported point per coin per minute over the records' span, around each coin's trading price.
const PRICES = `
  INSERT INTO price (time, base, quote, price, source)
  SELECT timestamptz '2026-01-01 00:00:00+00' + m * interval '1 minute', c.coin, 'USDT',
         round(c.base * (1 + ((m * 7919) % 2001 - 1000)::numeric / 10000), 2), 'bench'
  FROM generate_series(0::bigint, $1::bigint) AS m
  CROSS JOIN (VALUES ('BTC', 60000), ('ETH', 3000), ('SOL', 150)) AS c(coin, base)`;

async function seed(databaseUrl: string, rows: number): Promise<{ accountId: string; prices: number }> {
  const accountId = randomUUID();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO account (id, name, base_url, api_key, secret_enc, passphrase_enc, updated_at)
       VALUES ($1, 'bench', 'http://127.0.0.1:1', 'k', 'x', 'x', now())`,
      [accountId],
    );
    await client.query(SEED, [accountId, rows]);
    await client.query('ANALYZE spot_record');
    const { rowCount } = await client.query(PRICES, [Math.ceil((rows * 0.864) / 60)]);
    await client.query('ANALYZE price');
    return { accountId, prices: rowCount ?? 0 };
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const url = new URL(SERVER_URL);
  url.pathname = `/ll_bench_gains_${randomBytes(4).toString('hex')}`;
  const databaseUrl = url.toString();
  const dir = await mkdtemp(path.join(tmpdir(), 'll-bench-gains-'));
  const days = Math.max(1, Math.round(TOTAL_ROWS / ROWS_PER_DAY));
  const records = days * ROWS_PER_DAY;
  const lastDay = `2026-01-${String(days).padStart(2, '0')}`;
  try {
    const t0 = performance.now();
    await migrateDatabase(databaseUrl);
    const { accountId, prices } = await seed(databaseUrl, records);
    const seedSeconds = (performance.now() - t0) / 1000;
    console.log(`seeded ${records} spot records and ${prices} prices in ${seedSeconds.toFixed(1)} s`);

    const csv = (name: string) => path.join(dir, `${name}.csv`);
    const small = await exportInChild(databaseUrl, accountId, '2026-01-01', 'fifo', csv('fifo-100k'));
    const large: ChildResult[] = [];
    for (const method of LOT_METHODS)
      large.push(await exportInChild(databaseUrl, accountId, lastDay, method, csv(method)));
    const again = await exportInChild(databaseUrl, accountId, lastDay, 'fifo', csv('fifo-again'));
    const capped = await exportInChild(databaseUrl, accountId, lastDay, 'fifo', csv('fifo-capped'), [
      `--max-old-space-size=${CAPPED_HEAP_MB}`,
    ]);
    const fifo = large[0]!;
    const perSecond = (r: ChildResult, walked: number) => Math.round(walked / (r.ms / 1000));

    const table: [string, string][] = [
      ['records walked (100k run / full run)', `${Math.min(records, ROWS_PER_DAY)} / ${records}`],
      ['rows written, fifo (100k / full)', `${small.rows} / ${fifo.rows}`],
      ...large.map((r): [string, string] => [
        `wall, ${r.method}, ${records} records`,
        `${(r.ms / 1000).toFixed(2)} s (${perSecond(r, records)} records/s, ${Math.round(r.rows / (r.ms / 1000))} rows/s)`,
      ]),
      ['peak RSS fifo at 100k', `${small.peakRssMb.toFixed(0)} MB (baseline ${small.baselineRssMb.toFixed(0)} MB)`],
      [`peak RSS fifo at ${records}`, `${fifo.peakRssMb.toFixed(0)} MB (baseline ${fifo.baselineRssMb.toFixed(0)} MB)`],
      [`peak RSS, any method at ${records}`, `${Math.max(...large.map((r) => r.peakRssMb)).toFixed(0)} MB`],
      [`RSS growth 100k -> ${records} (fifo)`, `${(fifo.peakRssMb - small.peakRssMb).toFixed(0)} MB`],
      ['flagged rows (fifo, full run)', JSON.stringify(fifo.review)],
      ['repeated export byte-identical', String(again.sha256 === fifo.sha256)],
      [
        `fifo with a ${CAPPED_HEAP_MB} MB V8 heap`,
        `${(capped.ms / 1000).toFixed(2)} s, peak RSS ${capped.peakRssMb.toFixed(0)} MB, same bytes: ${capped.sha256 === fifo.sha256}`,
      ],
    ];
    const width = Math.max(...table.map(([k]) => k.length));
    console.log('\nrealized-gains benchmark');
    for (const [k, v] of table) console.log(`  ${k.padEnd(width)}  ${v}`);
    console.log(
      JSON.stringify({
        bench: 'gains',
        records,
        rows: fifo.rows,
        rows100k: small.rows,
        seconds: Object.fromEntries(large.map((r) => [r.method, Number((r.ms / 1000).toFixed(3))])),
        recordsPerSecondFifo: perSecond(fifo, records),
        rowsPerSecondFifo: Math.round(fifo.rows / (fifo.ms / 1000)),
        peakRssMb100k: Number(small.peakRssMb.toFixed(1)),
        peakRssMb1m: Number(fifo.peakRssMb.toFixed(1)),
        peakRssMb1mAnyMethod: Number(Math.max(...large.map((r) => r.peakRssMb)).toFixed(1)),
        review: fifo.review,
        repeatIdentical: again.sha256 === fifo.sha256,
        cappedHeapMb: CAPPED_HEAP_MB,
        cappedSeconds: Number((capped.ms / 1000).toFixed(3)),
        cappedPeakRssMb: Number(capped.peakRssMb.toFixed(1)),
        cappedIdentical: capped.sha256 === fifo.sha256,
        seedSeconds: Number(seedSeconds.toFixed(1)),
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
    await dropDatabase(databaseUrl);
  }
}

if (process.argv[2] === '--child') await child();
else await main();
