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
 *   npm run bench:export            (BENCH_EXPORT_ROWS=200000 for a quick run)
 */
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import pg from 'pg';

import { SPOT_TAX_TYPES } from '../src/booking/spot-bookings.ts';
import { dropDatabase } from '../src/db/ensure-database.ts';
import { migrateDatabase } from '../src/db/migrations.ts';
import { copyStatement } from '../src/export/copy-report.ts';
import { parseExportRequest, reportParams } from '../src/export/export-request.ts';
import { exportToFile } from '../src/export/export-to-file.ts';
import { reportByName } from '../src/export/reports/index.ts';
import { streamReport } from '../src/export/stream-report.ts';
import { runBenchChild } from './lib/bench-child.ts';

const run = promisify(execFile);
const ROWS_PER_DAY = 100_000;
const REPEATS = 3;
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
function literal(value: unknown): string {
  if (Array.isArray(value)) return `ARRAY[${value.map(literal).join(', ')}]`;
  return `'${String(value).replaceAll("'", "''")}'`;
}

/** The report's query with its parameters written in, for psql (which cannot bind them). */
function inlineQuery(text: string, values: unknown[]): string {
  return text.replace(/\$(\d+)/g, (_m, n: string) => literal(values[Number(n) - 1])).replace(/\s+/g, ' ');
}

async function psqlCopy(databaseUrl: string, accountId: string, to: string, out: string) {
  const request = parseExportRequest({ report: 'spot-ledger', accountId, from: '2026-01-01', to, tz: 'UTC' });
  const report = reportByName('spot-ledger');
  if (report.kind !== 'sql') throw new Error('spot-ledger is a SQL report');
  const { text, values } = report.query(reportParams(request, 'bench'));
  const headers = report.columns.map((c) => c.header);
  // The same query, the same columns (the trailing manifest flag column is left out).
  const query = `SELECT ${headers.map((_h, i) => `c${i + 1}`).join(', ')} FROM (${inlineQuery(text, values)}) AS q(${[
    ...headers.map((_h, i) => `c${i + 1}`),
    'flag',
  ].join(', ')})`;
  const started = performance.now();
  await run(
    'psql',
    [
      '-X',
      '-q',
      '-v',
      'ON_ERROR_STOP=1',
      '-d',
      databaseUrl,
      '-c',
      "SET TIME ZONE 'UTC'",
      '-c',
      `\\copy (${query}) TO '${out}' WITH (FORMAT csv, HEADER)`,
    ],
    { maxBuffer: 1 << 20 },
  );
  const ms = performance.now() - started;
  return { ms, bytes: (await stat(out)).size };
}

/** The plan Postgres picks for the export's COPY query (the nodes, outermost first). */
async function planOfCopy(databaseUrl: string, accountId: string, to: string): Promise<string> {
  const request = parseExportRequest({ report: 'spot-ledger', accountId, from: '2026-01-01', to, tz: 'UTC' });
  const report = reportByName('spot-ledger');
  if (report.kind !== 'sql') throw new Error('spot-ledger is a SQL report');
  const select = copyStatement(report, reportParams(request, 'bench')).replace(
    /^COPY \(|\) TO STDOUT \(FORMAT csv\)$/g,
    '',
  );
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("SET TIME ZONE 'UTC'");
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${select}`);
    return rows
      .map((r) => r['QUERY PLAN'].trim().replace(/^-> +/, ''))
      .filter((line) => !/^(Sort Key|Presorted Key|Index Cond|Workers Planned)/.test(line))
      .join(' / ');
  } finally {
    await client.end();
  }
}

async function seed(databaseUrl: string, rows: number): Promise<string> {
  const accountId = randomUUID();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO account (id, name, base_url, api_key, secret_enc, passphrase_enc, updated_at)
       VALUES ($1, 'bench', 'http://127.0.0.1:1', 'k', 'x', 'x', now())`,
      [accountId],
    );
    const types = Object.keys(SPOT_TAX_TYPES);
    // Realistic shapes: 18-digit ids, signed amounts of varying scale, fees, running balances, raw JSON.
    await client.query(
      `INSERT INTO spot_record (account_id, record_id, coin, spot_tax_type, amount, fee, balance, biz_order_id, ts, raw)
       SELECT $1::uuid, r.id, r.coin, r.type, r.amount, r.fee, r.balance, r.biz, r.ts,
              jsonb_build_object('id', r.id, 'coin', r.coin, 'spotTaxType', r.type, 'amount', r.amount::text,
                'fee', r.fee::text, 'balance', r.balance::text, 'bizOrderId', r.biz,
                'ts', (extract(epoch from r.ts) * 1000)::bigint::text)
       FROM (
         SELECT (1100000000000000000 + g)::text AS id,
                ($2::text[])[(1 + g % 4)::int] AS coin,
                ($3::text[])[(1 + g % cardinality($3::text[]))::int] AS type,
                round(((g * 7919) % 2000001 - 1000000)::numeric / 10000, (g % 9)::int) AS amount,
                CASE WHEN g % 3 = 0 THEN -round((g % 1000)::numeric / 1000000, 8) ELSE 0 END AS fee,
                round((g * 31)::numeric / 100, 8) AS balance,
                CASE WHEN g % 5 = 0 THEN '' ELSE (900000000000 + g / 2)::text END AS biz,
                timestamptz '2026-01-01 00:00:00+00' + (g - 1) * interval '864 milliseconds' AS ts
         FROM generate_series(1::bigint, $4::bigint) AS g
       ) AS r`,
      [accountId, ['BTC', 'ETH', 'USDT', 'SOL'], types, rows],
    );
    await client.query('ANALYZE spot_record');
  } finally {
    await client.end();
  }
  return accountId;
}

function median<T>(items: T[], key: (item: T) => number): T {
  return [...items].sort((a, b) => key(a) - key(b))[Math.floor(items.length / 2)]!;
}

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

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
    const accountId = await seed(databaseUrl, days * ROWS_PER_DAY);
    const seedSeconds = (performance.now() - t0) / 1000;
    console.log(`seeded ${days * ROWS_PER_DAY} spot records in ${seedSeconds.toFixed(1)} s (throwaway database)`);
    const copyPlan = await planOfCopy(databaseUrl, accountId, lastDay);
    console.log(`COPY plan: ${copyPlan}`);

    // Warm the cache once so neither side pays for the first read from disk.
    await psqlCopy(databaseUrl, accountId, lastDay, path.join(dir, 'warm.csv'));

    // Export and psql alternate, three times each, and the medians are compared: the machine is
    // shared, and a burst of someone else's work during one run must not decide the ratio.
    const small = await exportInChild(databaseUrl, accountId, '2026-01-01', path.join(dir, 'export-100k.csv'));
    const exports: ChildResult[] = [];
    const copies: { ms: number; bytes: number }[] = [];
    for (let i = 0; i < REPEATS; i++) {
      exports.push(await exportInChild(databaseUrl, accountId, lastDay, path.join(dir, 'export-1m.csv')));
      copies.push(await psqlCopy(databaseUrl, accountId, lastDay, path.join(dir, 'psql-1m.csv')));
    }
    const large = median(exports, (r) => r.ms);
    const copy = median(copies, (r) => r.ms);
    large.peakRssMb = Math.max(...exports.map((r) => r.peakRssMb));
    const fileSha = await sha256File(path.join(dir, 'export-1m.csv'));
    const identical = exports.every((r) => r.sha256 === exports[0]!.sha256);
    // The former path, once, for reference: it must write the very same bytes.
    const node = await exportInChild(databaseUrl, accountId, lastDay, path.join(dir, 'node-1m.csv'), 'node');
    const rssGrowthMb = large.peakRssMb - small.peakRssMb;

    const ratio = large.ms / copy.ms;
    const rows: [string, string][] = [
      ['rows exported (100k run / 1M run)', `${small.rows} / ${large.rows}`],
      ['runs (median of each side taken)', `${REPEATS} exports / ${REPEATS} psql \\copy, alternating`],
      [
        'export time, 1M rows',
        `${(large.ms / 1000).toFixed(2)} s (${Math.round(large.rows / (large.ms / 1000))} rows/s)`,
      ],
      ['psql \\copy (same query) to csv', `${(copy.ms / 1000).toFixed(2)} s`],
      ['ratio export / psql (target <= 1.2)', ratio.toFixed(2)],
      [
        'Node encoder (former path), 1M rows, 1 run',
        `${(node.ms / 1000).toFixed(2)} s (ratio ${(node.ms / copy.ms).toFixed(2)}, same bytes: ${node.sha256 === large.sha256})`,
      ],
      [
        'export process CPU, COPY / Node encoder',
        `${large.cpuSeconds.toFixed(2)} s / ${node.cpuSeconds.toFixed(2)} s (Postgres' CPU not included)`,
      ],
      ['CSV size export / psql', `${(large.bytes / 2 ** 20).toFixed(1)} MB / ${(copy.bytes / 2 ** 20).toFixed(1)} MB`],
      ['peak RSS at 100k rows', `${small.peakRssMb.toFixed(0)} MB (baseline ${small.baselineRssMb.toFixed(0)} MB)`],
      [
        'peak RSS at 1M rows (target: flat)',
        `${large.peakRssMb.toFixed(0)} MB (baseline ${large.baselineRssMb.toFixed(0)} MB)`,
      ],
      ['RSS growth 100k -> 1M', `${rssGrowthMb.toFixed(0)} MB`],
      ['manifest sha256 = file sha256', String(fileSha === large.sha256)],
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
        exportSeconds: Number((large.ms / 1000).toFixed(3)),
        psqlCopySeconds: Number((copy.ms / 1000).toFixed(3)),
        ratio: Number(ratio.toFixed(3)),
        ratioTarget: 1.2,
        encoder: 'copy',
        peakRssMb100k: Number(small.peakRssMb.toFixed(1)),
        peakRssMb1m: Number(large.peakRssMb.toFixed(1)),
        rssTargetMb: 200,
        rssGrowthMb: Number(rssGrowthMb.toFixed(1)),
        exportCpuSeconds: Number(large.cpuSeconds.toFixed(3)),
        nodeEncoderSeconds: Number((node.ms / 1000).toFixed(3)),
        nodeEncoderCpuSeconds: Number(node.cpuSeconds.toFixed(3)),
        nodeEncoderRatio: Number((node.ms / copy.ms).toFixed(3)),
        nodeEncoderSameBytes: node.sha256 === large.sha256,
        nodeEncoderPeakRssMb: Number(node.peakRssMb.toFixed(1)),
        exportBytes: large.bytes,
        psqlBytes: copy.bytes,
        sha256Matches: fileSha === large.sha256,
        repeatsIdentical: identical,
        exportRunsSeconds: exports.map((r) => Number((r.ms / 1000).toFixed(3))),
        psqlRunsSeconds: copies.map((r) => Number((r.ms / 1000).toFixed(3))),
        seedSeconds: Number(seedSeconds.toFixed(1)),
        copyPlan,
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
    await dropDatabase(databaseUrl);
  }
}

if (process.argv[2] === '--child') await child();
else await main();
