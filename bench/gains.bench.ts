/**
 * Realized-gains benchmark: the lot walk over 1,000,000 spot records, its speed and its memory.
 *
 * The records are seeded with one generate_series INSERT into a throwaway database (dropped at the
 * end; lib/gains-seed.ts: trades, income, withdrawals and fees of three coins), 864 ms apart from
 * 2026-01-01 00:00 UTC, so every UTC day holds exactly 100,000: the period 2026-01-01..01 walks
 * 100k records, 01..10 walks 1M (no checkpoint exists before either: both walk from the first
 * record; bench:gains-month measures a month from a checkpoint). The holdings stay small, as an
 * account's do, while the history grows: memory must then stay flat. Prices are an imported source
 * with a point per coin per minute (so the price book streams ~4,300 points a day beside the records).
 * Each export runs in a child process of its own, so the RSS it reports is the export's alone;
 * a last fifo run with a 48 MB V8 heap shows the walk's memory is bounded (RSS also measures how
 * lazily V8 collects while it may grow).
 *
 *   npm run bench:gains            (BENCH_GAINS_ROWS=200000 for a quick run)
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { LOT_METHODS } from '../src/accounting/lots/lot-method.ts';
import { dropDatabase } from '../src/db/ensure-database.ts';
import { migrateDatabase } from '../src/db/migrations.ts';
import { parseExportRequest } from '../src/export/export-request.ts';
import { exportToFile } from '../src/export/export-to-file.ts';
import { runBenchChild } from './lib/bench-child.ts';
import { seedGains } from './lib/gains-seed.ts';

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
    const { accountId, prices } = await seedGains(databaseUrl, { rows: records, spacingMs: 864, priceEveryMinutes: 1 });
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
