/**
 * Export benchmark: the spot-ledger export of 1,000,000 spot records against `psql \copy` of the
 * very same query to CSV, and the export's peak RSS at 100k and at 1M rows.
 *
 * The rows are seeded with one generate_series INSERT into a throwaway database that is dropped
 * at the end. 1,000,000 records are spread 864 ms apart from 2026-01-01 00:00 UTC, so every UTC
 * day holds exactly 100,000 of them: the period 2026-01-01..01 has 100k rows, 01..10 has 1M.
 * Each export runs in a child process of its own, so the RSS it reports is the export's alone.
 * SQL reports go out through COPY (src/export/copy-report.ts); one run of the Node encoder
 * (encoder: 'node', the path computed reports take) is timed alongside for reference.
 *
 * The machine is shared, so wall times move with other people's work: export and psql alternate
 * (export, psql, export, psql, ...) REPEATS times each, after an unmeasured psql run (the cache)
 * and the 100k export, and the ratio is that of the two medians; each side's spread is printed beside it. psql's query is the
 * report's without its flag column (the manifest's counts, which psql does not need). The
 * Postgres CPU of both queries, which the load hardly moves, is taken in one session beside them.
 *
 *   npm run bench:export            (BENCH_EXPORT_ROWS=200000 for a quick run; BENCH_EXPORT_REPEATS=5)
 */
import { randomBytes } from 'node:crypto';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';

import pg from 'pg';

import { dropDatabase } from '../src/db/ensure-database.ts';
import { migrateDatabase } from '../src/db/migrations.ts';
import { copyStatement } from '../src/export/copy-report.ts';
import { parseExportRequest, reportParams } from '../src/export/export-request.ts';
import { exportToFile } from '../src/export/export-to-file.ts';
import { inlineParams } from '../src/export/inline-params.ts';
import { reportByName } from '../src/export/reports/index.ts';
import { streamReport } from '../src/export/stream-report.ts';
import { backendCpuSeconds } from './lib/backend-cpu.ts';
import { runBenchChild } from './lib/bench-child.ts';
import { psqlCopy } from './lib/psql-copy.ts';
import { formatRunStats, type RunStats, runStats } from './lib/run-stats.ts';
import { seedSpotRecords } from './lib/spot-records-seed.ts';

const ROWS_PER_DAY = 100_000;
const REPEATS = Number(process.env.BENCH_EXPORT_REPEATS ?? 5);
const TOTAL_ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);
const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

interface ChildResult {
  rows: number;
  bytes: number;
  sha256: string;
  ms: number;
  baselineRssMb: number;
  peakRssMb: number;
  /** CPU the export process used (user + system), s: Postgres' own work is not in it. */
  cpuSeconds: number;
}

// ---------------------------------------------------------------------------- child: one export
async function child(): Promise<void> {
  const [databaseUrl, accountId, to, out, encoder] = process.argv.slice(3) as [string, string, string, string, string];
  const baselineRssMb = process.memoryUsage().rss / 2 ** 20;
  const request = parseExportRequest({ report: 'spot-ledger', accountId, from: '2026-01-01', to, tz: 'UTC' });
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  // The Node encoder is reachable through streamReport only (exportToFile takes the default path).
  const manifest =
    encoder === 'node'
      ? await streamReport({
          databaseUrl,
          report: reportByName('spot-ledger'),
          params: reportParams(request, 'bench'),
          sink: createWriteStream(out),
          encoder: 'node',
        })
      : (
          await exportToFile({
            databaseUrl,
            request,
            account: { id: accountId, name: 'bench' },
            csvPath: out,
          })
        ).manifest;
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  // maxRSS is the high-water mark of this process (kB), sampled by the kernel: nothing is missed.
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  const result: ChildResult = {
    rows: manifest.rowCount,
    bytes: manifest.bytes,
    sha256: manifest.sha256,
    ms,
    baselineRssMb,
    peakRssMb,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function exportInChild(
  databaseUrl: string,
  accountId: string,
  to: string,
  out: string,
  encoder: 'copy' | 'node' = 'copy',
): Promise<ChildResult> {
  return runBenchChild<ChildResult>(import.meta.filename, [databaseUrl, accountId, to, out, encoder]);
}

// ---------------------------------------------------------------------------- parent
/** The export's COPY statement and psql's query (the report's without its flag column), on one line each. */
function statements(accountId: string, to: string): { copy: string; psqlQuery: string } {
  const request = parseExportRequest({ report: 'spot-ledger', accountId, from: '2026-01-01', to, tz: 'UTC' });
  const report = reportByName('spot-ledger');
  if (report.kind !== 'sql') throw new Error('spot-ledger is a SQL report');
  const params = reportParams(request, 'bench');
  const { text, values } = report.query(params);
  const cells = report.columns.map((_c, i) => `c${i + 1}`);
  const query = inlineParams(text, values).replace(/\s+/g, ' ');
  return {
    copy: copyStatement(report, params).replace(/\s+/g, ' '),
    psqlQuery: `SELECT ${cells.join(', ')} FROM (${query}) AS q(${[...cells, 'flag'].join(', ')})`,
  };
}

/** The plan Postgres picks for a query (the nodes, outermost first). */
async function planOf(databaseUrl: string, query: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("SET TIME ZONE 'UTC'");
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${query}`);
    return rows
      .map((r) => r['QUERY PLAN'].trim().replace(/^-> +/, ''))
      .filter((line) => !/^(Sort Key|Presorted Key|Index Cond|Workers Planned|JIT|Functions|Options)/.test(line))
      .join(' / ');
  } finally {
    await client.end();
  }
}

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const seconds = (ms: number) => ms / 1000;
const round = (value: number, places = 3) => Number(value.toFixed(places));
const roundStats = (stats: RunStats) => ({
  median: round(stats.median),
  min: round(stats.min),
  max: round(stats.max),
  spreadPercent: round(stats.spreadPercent, 1),
});

async function main(): Promise<void> {
  const url = new URL(SERVER_URL);
  url.pathname = `/ll_bench_export_${randomBytes(4).toString('hex')}`;
  const databaseUrl = url.toString();
  const dir = await mkdtemp(path.join(tmpdir(), 'll-bench-export-'));
  const days = Math.max(1, Math.round(TOTAL_ROWS / ROWS_PER_DAY));
  const lastDay = `2026-01-${String(days).padStart(2, '0')}`;
  try {
    const t0 = performance.now();
    await migrateDatabase(databaseUrl);
    const accountId = await seedSpotRecords(databaseUrl, days * ROWS_PER_DAY);
    const seedSeconds = (performance.now() - t0) / 1000;
    console.log(`seeded ${days * ROWS_PER_DAY} spot records in ${seedSeconds.toFixed(1)} s (throwaway database)`);
    const { copy, psqlQuery } = statements(accountId, lastDay);
    const copyPlan = await planOf(databaseUrl, copy.replace(/^COPY \((.*)\) TO STDOUT \(FORMAT csv\)$/, '$1'));
    const psqlPlan = await planOf(databaseUrl, psqlQuery);
    console.log(`COPY plan: ${copyPlan}\npsql plan: ${psqlPlan}`);

    // An unmeasured psql run, so that neither side pays for the first read from disk.
    await psqlCopy(databaseUrl, psqlQuery, path.join(dir, 'warm.csv'));
    const small = await exportInChild(databaseUrl, accountId, '2026-01-01', path.join(dir, 'export-100k.csv'));
    const exports: ChildResult[] = [];
    const copies: { ms: number; bytes: number }[] = [];
    for (let i = 0; i < REPEATS; i++) {
      exports.push(await exportInChild(databaseUrl, accountId, lastDay, path.join(dir, 'export-1m.csv')));
      copies.push(await psqlCopy(databaseUrl, psqlQuery, path.join(dir, 'psql-1m.csv')));
    }
    const exportStats = runStats(exports.map((r) => seconds(r.ms)));
    const psqlStats = runStats(copies.map((r) => seconds(r.ms)));
    const ratio = exportStats.median / psqlStats.median;
    const pairRatios = exports.map((r, i) => r.ms / copies[i]!.ms);
    const large = exports[0]!;
    const peakRssMb1m = Math.max(...exports.map((r) => r.peakRssMb));
    const exportCpu = runStats(exports.map((r) => r.cpuSeconds));
    const fileSha = await sha256File(path.join(dir, 'export-1m.csv'));
    const identical = exports.every((r) => r.sha256 === large.sha256 && r.rows === large.rows);
    // The former path, once, for reference: it must write the very same bytes.
    const node = await exportInChild(databaseUrl, accountId, lastDay, path.join(dir, 'node-1m.csv'), 'node');
    const [exportServerCpu, psqlServerCpu] =
      (await backendCpuSeconds(databaseUrl, [copy, `COPY (${psqlQuery}) TO STDOUT (FORMAT csv, HEADER)`], 3)) ?? [];
    const rssGrowthMb = peakRssMb1m - small.peakRssMb;

    const rows: [string, string][] = [
      ['rows exported (100k run / 1M run)', `${small.rows} / ${large.rows}`],
      ['runs, alternating', `${REPEATS} exports, ${REPEATS} psql \\copy (after a psql warm-up)`],
      ['export: median (min-max)', formatRunStats(exportStats)],
      ['psql \\copy (same query): median (min-max)', formatRunStats(psqlStats)],
      ['ratio of medians export / psql (target <= 1.2)', ratio.toFixed(2)],
      ['ratio of each pair', pairRatios.map((r) => r.toFixed(2)).join(' ')],
      [
        'Postgres CPU export / psql query (median of 3)',
        exportServerCpu === undefined
          ? 'not measured (Postgres on another machine)'
          : `${exportServerCpu.toFixed(2)} s / ${psqlServerCpu!.toFixed(2)} s (${(exportServerCpu / psqlServerCpu!).toFixed(2)})`,
      ],
      [
        'Node encoder (former path), 1 run',
        `${seconds(node.ms).toFixed(2)} s (ratio ${(node.ms / 1000 / psqlStats.median).toFixed(2)}, same bytes: ${node.sha256 === large.sha256})`,
      ],
      [
        'export process CPU, COPY (median) / Node encoder',
        `${exportCpu.median.toFixed(2)} s / ${node.cpuSeconds.toFixed(2)} s (Postgres' CPU not included)`,
      ],
      [
        'CSV size export / psql',
        `${(large.bytes / 2 ** 20).toFixed(1)} MB / ${(copies[0]!.bytes / 2 ** 20).toFixed(1)} MB`,
      ],
      ['peak RSS at 100k rows', `${small.peakRssMb.toFixed(0)} MB (baseline ${small.baselineRssMb.toFixed(0)} MB)`],
      [
        'peak RSS at 1M rows (target: flat)',
        `${peakRssMb1m.toFixed(0)} MB (baseline ${large.baselineRssMb.toFixed(0)} MB)`,
      ],
      ['RSS growth 100k -> 1M', `${rssGrowthMb.toFixed(0)} MB`],
      ['manifest sha256 = file sha256', String(fileSha === exports.at(-1)!.sha256)],
      ['repeated exports byte-identical', String(identical)],
    ];
    const width = Math.max(...rows.map(([k]) => k.length));
    console.log('\nspot-ledger export benchmark');
    for (const [k, v] of rows) console.log(`  ${k.padEnd(width)}  ${v}`);
    console.log(
      JSON.stringify({
        bench: 'export',
        rows: large.rows,
        rows100k: small.rows,
        repeats: REPEATS,
        ratio: round(ratio),
        ratioTarget: 1.2,
        exportSeconds: roundStats(exportStats),
        psqlCopySeconds: roundStats(psqlStats),
        pairRatios: pairRatios.map((r) => round(r)),
        exportRunsSeconds: exports.map((r) => round(seconds(r.ms))),
        psqlRunsSeconds: copies.map((r) => round(seconds(r.ms))),
        exportServerCpuSeconds: exportServerCpu === undefined ? null : round(exportServerCpu, 2),
        psqlServerCpuSeconds: psqlServerCpu === undefined ? null : round(psqlServerCpu, 2),
        exportCpuSeconds: roundStats(exportCpu),
        encoder: 'copy',
        peakRssMb100k: round(small.peakRssMb, 1),
        peakRssMb1m: round(peakRssMb1m, 1),
        rssTargetMb: 200,
        rssGrowthMb: round(rssGrowthMb, 1),
        nodeEncoderSeconds: round(seconds(node.ms)),
        nodeEncoderCpuSeconds: round(node.cpuSeconds),
        nodeEncoderRatio: round(seconds(node.ms) / psqlStats.median),
        nodeEncoderSameBytes: node.sha256 === large.sha256,
        nodeEncoderPeakRssMb: round(node.peakRssMb, 1),
        exportBytes: large.bytes,
        psqlBytes: copies[0]!.bytes,
        sha256Matches: fileSha === exports.at(-1)!.sha256,
        repeatsIdentical: identical,
        seedSeconds: round(seedSeconds, 1),
        copyPlan,
        psqlPlan,
        loadAverage: loadavg().map((l) => round(l, 1)),
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
    await dropDatabase(databaseUrl);
  }
}

if (process.argv[2] === '--child') await child();
else await main();
