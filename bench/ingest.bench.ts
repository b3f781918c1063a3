/**
 * bench:ingest — how fast ledgerline stores exchange records.
 *
 * 1. The page store (500-record pages, each stored together with its
 *    window's cursor in one transaction, exactly as the workers do) against
 *    COPY of the same rows into the same table (psql \copy, the physical
 *    reference), each with the gains change-log triggers on spot_record (as
 *    deployed) and with them disabled, alternated over BENCH_ROUNDS rounds on
 *    one machine in one run (the triggers' cost is the ratio of the two), by
 *    wall time and by the CPU of the Postgres backend doing the work (a
 *    figure the machine's load hardly moves; the CPU of COPY is taken from
 *    the same COPY FROM STDIN on a session of this process, since psql's
 *    backend is gone when psql exits); then
 *    the same pages stored once more (every key stored already: the upsert
 *    path of a re-read lookback), and the bytes each stored row takes in the
 *    table, its TOAST and each index.
 * 2. End to end: backfill 1,000,000 spot records from the simulator (its own
 *    process, rate limits off) through the real queue and workers
 *    (BENCH_E2E_ROWS=0 leaves it out).
 *
 * Prints a table, then one JSON object with the figures as the last line.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

import { stringify } from 'csv-stringify/sync';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

import { createRuntime } from '../jobs/composition/create-runtime.ts';
import { startWorkers } from '../jobs/composition/workers.ts';
import { startBackfill } from '../src/app/services/backfill.ts';
import { loadConfig } from '../src/config/config.ts';
import { dropDatabase } from '../src/db/ensure-database.ts';
import { migrateDatabase } from '../src/db/migrations.ts';
import { storePage } from '../src/ingest/coverage/store-page.ts';
import { windowProgress } from '../src/ingest/coverage/window-progress.ts';
import { ensureWindows } from '../src/ingest/coverage/window-store.ts';
import { createRootLogger, setRootLogger } from '../src/logging/logger.ts';
import { spawnSimulator } from '../src/simulator/child-simulator.ts';
import { startSimulator } from '../src/simulator/index.ts';
import type { SpotLedgerRecord } from '../src/streams/spot/columns.ts';
import { spotRecordTable } from '../src/streams/spot/table.ts';
import { backendCpuNow } from './lib/backend-cpu.ts';

const SERVER = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const UPSERT_ROWS = Number(process.env.BENCH_UPSERT_ROWS ?? 200_000);
const E2E_ROWS = Number(process.env.BENCH_E2E_ROWS ?? 1_000_000);
// COPY and the page store alternate this many times, each keeping its best: on a shared machine
// one slow round says more about the neighbours than about either method.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DAY = 86_400_000;

function databaseUrl(label: string): string {
  const url = new URL(SERVER);
  url.pathname = `/ll_bench_${label}_${randomBytes(4).toString('hex')}`;
  return url.toString();
}

async function timed<T>(body: () => Promise<T>): Promise<[T, number]> {
  const start = process.hrtime.bigint();
  const value = await body();
  return [value, Number(process.hrtime.bigint() - start) / 1e9];
}

async function upsertVsCopy() {
  const url = databaseUrl('upsert');
  await migrateDatabase(url);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const sim = await startSimulator({ scale: { spotRecords: UPSERT_ROWS }, rateLimits: { enabled: false } });
  const records: SpotLedgerRecord[] = sim.truth('spot').map((r) => ({ ...r, raw: { ...r } }));
  await sim.close();
  const accountId = (
    await pool.query(
      `INSERT INTO account (id, name, base_url, api_key, secret_enc, passphrase_enc, updated_at)
       VALUES (gen_random_uuid(), 'bench', 'http://x', 'k', 's', 'p', now()) RETURNING id`,
    )
  ).rows[0].id as string;
  const csvPath = path.join(os.tmpdir(), `ll-bench-${process.pid}.csv`);
  writeFileSync(csvPath, stringify(records.map((r) => spotRecordTable.toRow(r, accountId))));
  const columns = spotRecordTable.columns.map((c) => c.name).join(', ');

  // The gains change-log triggers (the only user triggers on spot_record) on or off for a measure.
  const triggers = (on: boolean) => pool.query(`ALTER TABLE spot_record ${on ? 'ENABLE' : 'DISABLE'} TRIGGER USER`);
  // One session each for the page store and for COPY's CPU, so that each is one backend's /proc entry.
  const pagePool = new pg.Pool({ connectionString: url, max: 1, idleTimeoutMillis: 0 });
  const copyClient = new pg.Client({ connectionString: url });
  await copyClient.connect();
  const pidOf = async (db: pg.Pool | pg.Client) =>
    (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const [pagePid, copyPid] = [await pidOf(pagePool), await pidOf(copyClient)];
  const cpuDuring = async (pid: number, body: () => Promise<unknown>) => {
    const before = await backendCpuNow(pid);
    await body();
    const after = await backendCpuNow(pid);
    return before === null || after === null ? Number.NaN : after - before;
  };
  const copyCpu = async () => {
    await pool.query('TRUNCATE spot_record');
    return cpuDuring(copyPid, () =>
      pipeline(
        createReadStream(csvPath),
        copyClient.query(copyFrom(`COPY spot_record (${columns}) FROM STDIN WITH (FORMAT csv)`)),
      ),
    );
  };
  const copy = async () => {
    await pool.query('TRUNCATE spot_record');
    const [, seconds] = await timed(async () =>
      execFileSync('psql', [url, '-q', '-c', `\\copy spot_record (${columns}) FROM '${csvPath}' WITH (FORMAT csv)`]),
    );
    return seconds;
  };
  const upsert = async (again = false) => {
    if (!again) await pool.query('TRUNCATE spot_record');
    await pool.query('DELETE FROM sync_window');
    const [window] = await ensureWindows(pool, [{ accountId, stream: 'spot', scope: '', start: 0, end: DAY }]);
    let cpu = Number.NaN;
    const [, seconds] = await timed(async () => {
      let cursor: string | null = null;
      const before = await backendCpuNow(pagePid);
      for (let i = 0; i < records.length; i += 500) {
        const page = records.slice(i, i + 500);
        const next = page.at(-1)!.id;
        await storePage(pagePool, {
          windowId: window!.id,
          accountId,
          spec: spotRecordTable,
          records: page,
          fromCursor: cursor,
          nextCursor: next,
          last: false,
        });
        cursor = next;
      }
      const after = await backendCpuNow(pagePid);
      if (before !== null && after !== null) cpu = after - before;
    });
    return { seconds, cpu };
  };
  // Alternate, so drift in the machine's load hits all four alike (which trigger setting goes first
  // alternates too); keep each one's best. The triggers end enabled, as deployed.
  const copyTimes: number[] = [];
  const upsertTimes: number[] = [];
  const copyTimesOff: number[] = [];
  const upsertTimesOff: number[] = [];
  const cpu = { copyOn: [] as number[], copyOff: [] as number[], pageOn: [] as number[], pageOff: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const on of round % 2 === 0 ? [false, true] : [true, false]) {
      await triggers(on);
      (on ? copyTimes : copyTimesOff).push(await copy());
      (on ? cpu.copyOn : cpu.copyOff).push(await copyCpu());
      const page = await upsert();
      (on ? upsertTimes : upsertTimesOff).push(page.seconds);
      (on ? cpu.pageOn : cpu.pageOff).push(page.cpu);
    }
  }
  await triggers(true);
  const stored = Number((await pool.query('SELECT count(*) FROM spot_record')).rows[0].count);
  if (stored !== records.length) throw new Error(`upsert stored ${stored} of ${records.length} rows`);
  const storage = await bytesPerRow(pool, stored);
  const rereadSeconds = (await upsert(true)).seconds;
  await copyClient.end();
  await pagePool.end();
  await pool.end();
  rmSync(csvPath, { force: true });
  await dropDatabase(url);
  const rate = (times: number[]) => records.length / Math.min(...times);
  const [copyRate, upsertRate] = [rate(copyTimes), rate(upsertTimes)];
  const [copyRateOff, upsertRateOff] = [rate(copyTimesOff), rate(upsertTimesOff)];
  return {
    rows: records.length,
    copyRate,
    upsertRate,
    ratio: upsertRate / copyRate,
    copyTimes,
    upsertTimes,
    copyRateOff,
    upsertRateOff,
    copyTimesOff,
    upsertTimesOff,
    // Backend CPU seconds, the best of each (NaN when Postgres is not on this machine).
    cpu: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, Math.min(...v)])) as Record<
      keyof typeof cpu,
      number
    >,
    rereadRate: records.length / rereadSeconds,
    storage,
  };
}

/** Bytes per stored row of spot_record's heap, its TOAST table and each index (main forks). */
async function bytesPerRow(pool: pg.Pool, rows: number) {
  const result = await pool.query<{ part: string; bytes: string }>(
    `SELECT 'table' AS part, pg_relation_size('spot_record') AS bytes
     UNION ALL
     SELECT 'toast', COALESCE(sum(pg_relation_size(t.oid) + pg_indexes_size(t.oid)), 0)
       FROM pg_class c JOIN pg_class t ON t.oid = c.reltoastrelid WHERE c.relname = 'spot_record'
     UNION ALL
     SELECT i.relname, pg_relation_size(i.oid)
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
      WHERE x.indrelid = 'spot_record'::regclass`,
  );
  const parts = Object.fromEntries(result.rows.map((r) => [r.part, Number(r.bytes) / rows]));
  const total = Object.values(parts).reduce((sum, b) => sum + b, 0);
  return { parts, total };
}

async function endToEnd() {
  const url = databaseUrl('e2e');
  await migrateDatabase(url);
  const [sim, simSeconds] = await timed(() =>
    spawnSimulator(['--port', '0', '--seed', '42', '--scale', String(E2E_ROWS), '--no-rate-limits']),
  );
  const config = loadConfig({
    DATABASE_URL: url,
    REDIS_URL,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    EXCHANGE_RATE_FACTOR: '1000',
  });
  const runtime = createRuntime(config, { prefix: `llbench-${randomBytes(4).toString('hex')}` });
  try {
    await runtime.accounts.add({
      name: 'bench',
      baseUrl: sim.url,
      ...sim.demo,
      uid: sim.demo.uid,
      isBrokerParent: true,
      isUnifiedAccount: true,
    });
    const workers = startWorkers(runtime, { concurrency: 4 });
    const now = Date.now();
    const [, seconds] = await timed(async () => {
      const started = await startBackfill(runtime, {
        account: 'bench',
        stream: 'spot',
        from: now - 400 * DAY,
        to: now,
        now,
      });
      const ids = started.windows.map((w) => w.id);
      for (;;) {
        const progress = await windowProgress(runtime.pool, ids);
        if (progress.some((p) => p.failed > 0)) throw new Error(`windows failed: ${JSON.stringify(progress)}`);
        if (progress.every((p) => p.done === p.total)) return;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });
    await workers.close();
    const stored = Number((await runtime.pool.query('SELECT count(*) FROM spot_record')).rows[0].count);
    const keys = await runtime.redis.keys(`${runtime.prefix}:*`);
    if (keys.length > 0) await runtime.redis.del(...keys);
    return { stored, seconds, rate: stored / seconds, simStartSeconds: simSeconds };
  } finally {
    await runtime.close();
    await sim.stop();
    await dropDatabase(url);
  }
}

setRootLogger(createRootLogger({ level: 'silent' }));
const a = await upsertVsCopy();
const b = E2E_ROWS > 0 ? await endToEnd() : { stored: 0, seconds: 0, rate: 0 };
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const row = (measure: string, value: string) => console.log(`| ${measure.padEnd(51)} | ${value.padStart(16)} |`);
console.log('');
console.log('bench:ingest (one run, same machine; COPY is the physical reference)');
console.log(`| ${'measure'.padEnd(51)} | ${'value'.padEnd(16)} |`);
console.log(`|${'-'.repeat(53)}|${'-'.repeat(18)}|`);
const indexes = Object.keys(a.storage.parts).length - 2;
row(`rows per method (spot_record, ${indexes} indexes)`, fmt(a.rows));
// "triggers on" is spot_record as deployed; "off" the same table with its gains change-log triggers
// disabled (ALTER TABLE ... DISABLE TRIGGER USER), measured in the same alternating rounds.
row('COPY (psql \\copy), triggers on, rows/s', fmt(a.copyRate));
row('COPY (psql \\copy), triggers off, rows/s', fmt(a.copyRateOff));
row('COPY triggers on / off (target >= 0.90)', (a.copyRate / a.copyRateOff).toFixed(2));
row('page store + cursor (500/page), triggers on, rows/s', fmt(a.upsertRate));
row('page store + cursor, triggers off, rows/s', fmt(a.upsertRateOff));
row('page store triggers on / off (target >= 0.90)', (a.upsertRate / a.upsertRateOff).toFixed(2));
row('COPY backend CPU s, triggers on / off', `${a.cpu.copyOn.toFixed(2)} / ${a.cpu.copyOff.toFixed(2)}`);
row('COPY CPU on / off (target <= 1.10)', (a.cpu.copyOn / a.cpu.copyOff).toFixed(2));
row('page store backend CPU s, triggers on / off', `${a.cpu.pageOn.toFixed(2)} / ${a.cpu.pageOff.toFixed(2)}`);
row('page store CPU on / off (target <= 1.10)', (a.cpu.pageOn / a.cpu.pageOff).toFixed(2));
row('ratio page store / COPY, on (target >= 0.7)', a.ratio.toFixed(2));
row('same pages again (all stored), triggers on, rows/s', fmt(a.rereadRate));
for (const [part, bytes] of Object.entries(a.storage.parts)) {
  const name = part.replace(/^spot_record_/, '').replace(/^account_id_ts_idx$/, '(account_id, ts) index');
  row(`bytes per row: ${name}`, bytes.toFixed(1));
}
row('bytes per row: total', a.storage.total.toFixed(1));
if (E2E_ROWS > 0) {
  row('end-to-end backfill, spot rows stored', fmt(b.stored));
  row('end-to-end backfill, seconds', b.seconds.toFixed(1));
  row('end-to-end backfill, rows/s', fmt(b.rate));
}
console.log('');
console.log(
  JSON.stringify({
    bench: 'ingest',
    upsertRows: a.rows,
    copyRowsPerSec: Math.round(a.copyRate),
    upsertRowsPerSec: Math.round(a.upsertRate),
    upsertToCopyRatio: Number(a.ratio.toFixed(3)),
    copySeconds: a.copyTimes.map((t) => Number(t.toFixed(2))),
    upsertSeconds: a.upsertTimes.map((t) => Number(t.toFixed(2))),
    copyRowsPerSecNoTriggers: Math.round(a.copyRateOff),
    upsertRowsPerSecNoTriggers: Math.round(a.upsertRateOff),
    copyTriggerRatio: Number((a.copyRate / a.copyRateOff).toFixed(3)),
    upsertTriggerRatio: Number((a.upsertRate / a.upsertRateOff).toFixed(3)),
    copySecondsNoTriggers: a.copyTimesOff.map((t) => Number(t.toFixed(2))),
    upsertSecondsNoTriggers: a.upsertTimesOff.map((t) => Number(t.toFixed(2))),
    copyBackendCpuSeconds: Number(a.cpu.copyOn.toFixed(2)),
    copyBackendCpuSecondsNoTriggers: Number(a.cpu.copyOff.toFixed(2)),
    copyTriggerCpuRatio: Number((a.cpu.copyOn / a.cpu.copyOff).toFixed(3)),
    upsertBackendCpuSeconds: Number(a.cpu.pageOn.toFixed(2)),
    upsertBackendCpuSecondsNoTriggers: Number(a.cpu.pageOff.toFixed(2)),
    upsertTriggerCpuRatio: Number((a.cpu.pageOn / a.cpu.pageOff).toFixed(3)),
    rereadRowsPerSec: Math.round(a.rereadRate),
    bytesPerRow: Object.fromEntries(Object.entries(a.storage.parts).map(([k, v]) => [k, Number(v.toFixed(1))])),
    bytesPerRowTotal: Number(a.storage.total.toFixed(1)),
    e2eSpotRows: b.stored,
    e2eSeconds: Number(b.seconds.toFixed(1)),
    e2eRowsPerSec: Math.round(b.rate),
  }),
);
