/**
 * A month's realized gains at 1,000,000 spot records: from a gains checkpoint at the month's start
 * against the walk from the first record, side by side in one run (issue 29).
 *
 * The records (lib/gains-seed.ts: trades, income, withdrawals and fees of three coins) are spread
 * evenly over 2025, 31.5 s apart at 1M, with an imported price per coin every 10 minutes; the month
 * is December (about 1/12 of the records; a year in the past, since a walk stores no checkpoint
 * beyond the present). Per method, alternating BENCH_ROUNDS times: the method's
 * checkpoints deleted and December exported (the full walk, which stores the month starts it
 * passes), then December exported again (from the 1 December checkpoint). Each export runs in a
 * child process of its own; the two files must be the same bytes. Then, for fifo, a record
 * inserted late in November: December again (the checkpoints from November on are not used: it
 * walks from 1 November), and the full walk, same bytes.
 *
 *   npm run bench:gains-month      (BENCH_GAINS_ROWS=200000 for a quick run; BENCH_GAINS_METHODS=fifo,hifo)
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import pg from 'pg';

import { parseLotMethod } from '../src/accounting/lots/lot-method.ts';
import { dropDatabase } from '../src/db/ensure-database.ts';
import { migrateDatabase } from '../src/db/migrations.ts';
import { parseExportRequest } from '../src/export/export-request.ts';
import { exportToFile } from '../src/export/export-to-file.ts';
import { runBenchChild } from './lib/bench-child.ts';
import { seedGains } from './lib/gains-seed.ts';

const TOTAL_ROWS = Number(process.env.BENCH_GAINS_ROWS ?? 1_000_000);
const METHODS = (process.env.BENCH_GAINS_METHODS ?? 'fifo,hifo').split(',').map((m) => parseLotMethod(m));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const YEAR_MS = 365 * 24 * 3_600_000;
const MONTH = { from: '2025-12-01', to: '2025-12-31' };

interface ChildResult {
  rows: number;
  sha256: string;
  ms: number;
  peakRssMb: number;
}

// ---------------------------------------------------------------------------- child: one export
async function child(): Promise<void> {
  const [databaseUrl, accountId, method, out] = process.argv.slice(3) as [string, string, string, string];
  const request = parseExportRequest({ report: 'realized-gains', accountId, ...MONTH, tz: 'UTC', method });
  const started = performance.now();
  const { manifest } = await exportToFile({
    databaseUrl,
    request,
    account: { id: accountId, name: 'bench' },
    csvPath: out,
    valuation: { currency: 'USDT', priceToleranceMs: 36 * 3_600_000 },
  });
  const ms = performance.now() - started;
  const result: ChildResult = {
    rows: manifest.rowCount,
    sha256: manifest.sha256,
    ms,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

// ---------------------------------------------------------------------------- parent
interface MethodRuns {
  full: number[];
  checkpoint: number[];
  identical: boolean;
  rows: number;
  rss: number[];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const seconds = (ms: number) => Number((ms / 1000).toFixed(3));

async function main(): Promise<void> {
  const url = new URL(SERVER_URL);
  url.pathname = `/ll_bench_gainsmonth_${randomBytes(4).toString('hex')}`;
  const databaseUrl = url.toString();
  const dir = await mkdtemp(path.join(tmpdir(), 'll-bench-gains-month-'));
  const db = new pg.Client({ connectionString: databaseUrl });
  try {
    const t0 = performance.now();
    await migrateDatabase(databaseUrl);
    const spacingMs = Math.floor(YEAR_MS / TOTAL_ROWS);
    const { accountId, prices } = await seedGains(databaseUrl, {
      rows: TOTAL_ROWS,
      spacingMs,
      priceEveryMinutes: 10,
      start: '2025-01-01T00:00:00Z',
    });
    const seedSeconds = (performance.now() - t0) / 1000;
    await db.connect();
    const { rows: counted } = await db.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM spot_record WHERE ts >= '2025-12-01' AND ts < '2026-01-01'`,
    );
    const monthRecords = Number(counted[0]!.n);
    console.log(
      `seeded ${TOTAL_ROWS} spot records (${monthRecords} in December) and ${prices} prices in ${seedSeconds.toFixed(1)} s`,
    );

    const run = (method: string, name: string) =>
      runBenchChild<ChildResult>(import.meta.filename, [databaseUrl, accountId, method, path.join(dir, `${name}.csv`)]);
    const checkpointAtMonth = async (method: string) => {
      const sql = `SELECT 1 FROM gains_checkpoint WHERE method = $1 AND as_of = '2025-12-01'`;
      return (await db.query(sql, [method])).rows.length === 1;
    };

    const results: Record<string, MethodRuns> = {};
    for (const method of METHODS) {
      const r: MethodRuns = { full: [], checkpoint: [], identical: true, rows: 0, rss: [] };
      results[method] = r;
      for (let round = 0; round < ROUNDS; round++) {
        await db.query('DELETE FROM gains_checkpoint WHERE method = $1', [method]);
        const full = await run(method, `${method}-full-${round}`);
        if (!(await checkpointAtMonth(method)))
          throw new Error(`the full walk stored no checkpoint at 1 December (${method})`);
        const fromCheckpoint = await run(method, `${method}-checkpoint-${round}`);
        r.full.push(full.ms);
        r.checkpoint.push(fromCheckpoint.ms);
        r.rss.push(full.peakRssMb, fromCheckpoint.peakRssMb);
        r.identical &&= full.sha256 === fromCheckpoint.sha256;
        r.rows = full.rows;
      }
    }

    // A late record before the checkpoint: December walks from the 1 November checkpoint instead.
    const late = METHODS[0]!;
    await db.query(
      `INSERT INTO spot_record (account_id, record_id, coin, spot_tax_type, amount, fee, balance, biz_order_id, ts, raw)
       VALUES ($1, 'late-1', 'BTC', 'Deposit', 0.5, 0, 0, '', '2025-11-15T12:00:00Z', '{}')`,
      [accountId],
    );
    const afterLate = await run(late, `${late}-after-late`);
    await db.query('DELETE FROM gains_checkpoint WHERE method = $1', [late]);
    const fullAfterLate = await run(late, `${late}-full-after-late`);

    const table: [string, string][] = [
      ['records (in December)', `${TOTAL_ROWS} (${monthRecords})`],
      ...METHODS.flatMap((method): [string, string][] => {
        const r = results[method]!;
        const full = median(r.full);
        const checkpoint = median(r.checkpoint);
        return [
          [
            `${method}: December, full walk | from checkpoint`,
            `${(full / 1000).toFixed(2)} s | ${(checkpoint / 1000).toFixed(2)} s (medians of ${ROUNDS}), ${(full / checkpoint).toFixed(1)}x`,
          ],
          [`${method}: rows, same bytes`, `${r.rows}, ${r.identical}`],
        ];
      }),
      [
        `${late}: after a late record on 15 November`,
        `${(afterLate.ms / 1000).toFixed(2)} s from 1 November (full walk ${(fullAfterLate.ms / 1000).toFixed(2)} s), same bytes: ${afterLate.sha256 === fullAfterLate.sha256}`,
      ],
      ['peak RSS, any export', `${Math.max(...Object.values(results).flatMap((r) => r.rss)).toFixed(0)} MB`],
    ];
    const width = Math.max(...table.map(([k]) => k.length));
    console.log('\na month of realized gains: from a checkpoint vs the full walk');
    for (const [k, v] of table) console.log(`  ${k.padEnd(width)}  ${v}`);
    const byMethod = Object.fromEntries(
      METHODS.map((method) => {
        const r = results[method]!;
        const full = median(r.full);
        const checkpoint = median(r.checkpoint);
        return [
          method,
          {
            fullSeconds: seconds(full),
            checkpointSeconds: seconds(checkpoint),
            ratio: Number((full / checkpoint).toFixed(2)),
            identical: r.identical,
            rows: r.rows,
          },
        ];
      }),
    );
    console.log(
      JSON.stringify({
        bench: 'gains-month',
        records: TOTAL_ROWS,
        monthRecords,
        rounds: ROUNDS,
        methods: byMethod,
        ratio: byMethod[METHODS[0]!]!.ratio,
        identical: Object.values(byMethod).every((m) => m.identical),
        afterLateRecord: {
          method: late,
          seconds: seconds(afterLate.ms),
          fullSeconds: seconds(fullAfterLate.ms),
          identical: afterLate.sha256 === fullAfterLate.sha256,
        },
        seedSeconds: Number(seedSeconds.toFixed(1)),
      }),
    );
  } finally {
    await db.end().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    await dropDatabase(databaseUrl);
  }
}

if (process.argv[2] === '--child') await child();
else await main();
