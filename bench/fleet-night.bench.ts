/**
 * bench:fleet-night — one nightly run of many accounts already synced, against what the
 * exchange's budgets allow.
 *
 * The simulator runs in its own process with its real rate limits and BENCH_ACCOUNTS accounts
 * (default 200), each with a demo-scale history of its own. BENCH_WORKERS `ledgerline worker`
 * processes (default 1, default settings) do everything, as an operator starts them:
 *   1. set-up, unmeasured: every account backfills its last BENCH_SETUP_DAYS days (default 30) of
 *      every stream, then reconciles once (dated yesterday), so that the night finds what a
 *      night finds: verified balance chains, a passed re-count, the trade price watermark;
 *   2. the night: the nightly job is enqueued as its cron enqueues it; it fans out the accounts'
 *      syncs, each sync's finish refreshes prices and enqueues the account's reconciliation.
 * The night ends when every account's reconciliation report is written.
 *
 * A window ends on a page shorter than the limit only for an endpoint with page-fill evidence (a
 * full page stored within PAGE_FILL_EVIDENCE_DAYS, src/streams/kit/page-fill.ts); the set-up's
 * backfill is what gathers it, as an installation's own history does. The endpoints that have it
 * at the night's start are printed: the others ask every window's empty page.
 *
 * Set-up runs with BENCH_SETUP_WORKERS worker processes (default 2, at least BENCH_WORKERS): the
 * ones beyond BENCH_WORKERS are stopped before the night, so the night is measured with exactly
 * BENCH_WORKERS. The set-up is most of a run: at 1,000 accounts 31 min with two (the night 4).
 *
 * CPU of each process over the night (/proc, bench/lib/process-cpu.ts): the worker processes,
 * the Postgres backends of the bench's database (and, apart, the server's background processes,
 * which serve every database on the server), the Redis server (shared with whatever else uses it:
 * its figure is an upper bound), the simulator and this process (it enqueues the night and polls
 * for its end). Per account-night is the process's CPU over the accounts.
 *
 * The bound is the shortest time the budgets allow for the night's requests (the simulator's
 * request log): the busiest (UID, endpoint) budget's requests over its per-second limit, and every
 * request over the per-IP cap (6000 per minute). wallOverBound is the night's wall time over it.
 *
 * Prints a table, then one JSON object with the figures as the last line.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';

import { createRuntime } from '../jobs/composition/create-runtime.ts';
import { JOB, QUEUE } from '../jobs/definitions.ts';
import { enqueueReconciliation } from '../jobs/reconcile/enqueue-reconciliation.ts';
import { startBackfill } from '../src/app/services/backfill.ts';
import { loadConfig } from '../src/config/config.ts';
import { dropDatabase } from '../src/db/ensure-database.ts';
import { migrateDatabase } from '../src/db/migrations.ts';
import { createRootLogger, setRootLogger } from '../src/logging/logger.ts';
import { spawnSimulator } from '../src/simulator/child-simulator.ts';
import type { RequestLogEntry } from '../src/simulator/request-log.ts';
import { admin, budgetBound, registerFleet, round, startFleetWorkers, stopProcess } from './lib/fleet-kit.ts';
import { nightProcesses } from './lib/night-processes.ts';
import { nightPurposes } from './lib/night-purposes.ts';
import { ProcessCpu } from './lib/process-cpu.ts';

const SERVER = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 200);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const SETUP_DAYS = Number(process.env.BENCH_SETUP_DAYS ?? 30);
const SETUP_WORKERS = Math.max(WORKERS, Number(process.env.BENCH_SETUP_WORKERS ?? 2));
const DAY = 86_400_000;

setRootLogger(createRootLogger({ level: 'silent' }));
const url = new URL(SERVER);
url.pathname = `/ll_bench_night_${randomBytes(4).toString('hex')}`;
const databaseUrl = url.toString();
const prefix = `llbench-${randomBytes(4).toString('hex')}`;
await migrateDatabase(databaseUrl);
// Every account's demo-scale history lives in the simulator's heap (~5 MB each), and its request
// log must hold the whole night (~13 requests an account) for the bound and the purposes.
const sim = await spawnSimulator(
  [
    ...['--port', '0', '--seed', '42', '--scale', 'demo', '--anchor', 'today', '--admin'],
    ...['--request-log-size', String(Math.max(10_000, ACCOUNTS * 100))],
  ],
  { ...process.env, NODE_OPTIONS: `--max-old-space-size=${Math.max(4096, ACCOUNTS * 12)}` },
);
const config = loadConfig({ DATABASE_URL: databaseUrl, REDIS_URL, NODE_ENV: 'test', LOG_LEVEL: 'silent' });
const runtime = createRuntime(config, { prefix });
const workers: ChildProcess[] = [];

async function until(what: string, done: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const started = Date.now();
  let said = started;
  while (!(await done())) {
    if (Date.now() > started + timeoutMs) throw new Error(`${what}: not done after ${timeoutMs / 1000} s`);
    // A long set-up says it is alive (stderr: the table on stdout stays whole).
    if (Date.now() - said > 60_000) {
      said = Date.now();
      console.error(`${what}: ${Math.round((said - started) / 1000)} s, load ${os.loadavg()[0]!.toFixed(1)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Reports written since `since`, and the last one's end. */
async function reportsSince(since: Date): Promise<{ reports: number; passed: number; last: Date | null }> {
  const { rows } = await runtime.pool.query<{ reports: number; passed: number; last: Date | null }>(
    `SELECT count(*)::int AS reports, count(*) FILTER (WHERE passed)::int AS passed, max(finished_at) AS last
       FROM reconciliation_report WHERE started_at >= $1`,
    [since],
  );
  return rows[0]!;
}

try {
  const { names, ids, uidOfKey } = await registerFleet(runtime, sim, ACCOUNTS, 'night');
  workers.push(
    ...(await startFleetWorkers(runtime, {
      databaseUrl,
      redisUrl: REDIS_URL,
      prefix,
      count: SETUP_WORKERS,
      // No scheduled night of its own during the bench: the night is enqueued below.
      extra: { NIGHTLY_CRON: '0 0 1 1 *' },
    })),
  );

  // 1. Set-up: the accounts' first sync, then a reconciliation each (yesterday's).
  const setupStarted = Date.now();
  const windowIds: string[] = [];
  for (const name of names) {
    const now = Date.now();
    const backfill = await startBackfill(runtime, {
      account: name,
      stream: 'all',
      from: now - SETUP_DAYS * DAY,
      to: now,
      now,
    });
    windowIds.push(...backfill.windows.map((w) => w.id));
  }
  await until(
    'set-up backfill',
    async () => {
      const { rows } = await runtime.pool.query<{ open: number; failed: number }>(
        `SELECT count(*) FILTER (WHERE status <> 'done')::int AS open, count(*) FILTER (WHERE status = 'failed')::int AS failed
           FROM sync_window WHERE id = ANY($1::uuid[])`,
        [windowIds],
      );
      if (rows[0]!.failed > 0) throw new Error(`${rows[0]!.failed} set-up windows failed`);
      return rows[0]!.open === 0;
    },
    3_600_000,
  );
  const backfillSeconds = (Date.now() - setupStarted) / 1000;
  const warmUp = new Date();
  const yesterday = new Date(Date.now() - DAY);
  for (const id of ids) await enqueueReconciliation(runtime, id, { recount: 'recent', now: yesterday });
  await until('set-up reconciliation', async () => (await reportsSince(warmUp)).reports >= ACCOUNTS, 3_600_000);
  const setupSeconds = (Date.now() - setupStarted) / 1000;

  // The set-up's extra workers go: the night runs on BENCH_WORKERS.
  await Promise.all(workers.splice(WORKERS).map(stopProcess));
  const ingest = runtime.queues.get(QUEUE.ingest);
  await until('set-up workers stopping', async () => (await ingest.getWorkersCount()) <= WORKERS, 60_000);

  // What the set-up's backfill showed of each endpoint's pages: where a short page ends a window tonight.
  const evidence = await runtime.pool.query<{ endpoint: string; limit: number; full: boolean; gap: boolean }>(
    `SELECT endpoint, page_limit AS limit, last_full_page_at IS NOT NULL AS full, last_gap_at IS NOT NULL AS gap
       FROM page_fill_evidence ORDER BY endpoint`,
  );
  const filled = evidence.rows.filter((e) => e.full && !e.gap).map((e) => `${e.endpoint} (${e.limit})`);

  // 2. The night, as the cron enqueues it.
  await admin(sim.url, 'DELETE', 'requests');
  await admin(sim.url, 'POST', 'counters/reset');
  const cpu = new ProcessCpu(await nightProcesses(runtime.pool, runtime.redis, workers, sim.process));
  const loadBefore = os.loadavg()[0]!;
  await cpu.start();
  const nightStarted = new Date();
  await runtime.queues.untyped(QUEUE.sync).add(JOB.nightly, {});
  await until('the night', async () => (await reportsSince(nightStarted)).reports >= ACCOUNTS, 3_600_000);
  const cpuSeconds = await cpu.stop();
  const night = await reportsSince(nightStarted);
  const wallSeconds = (night.last!.getTime() - nightStarted.getTime()) / 1000;
  const loadAfter = os.loadavg()[0]!;
  const syncs = await runtime.pool.query<{ last: Date }>(
    `SELECT max(finished_at) AS last FROM sync_window WHERE finished_at >= $1`,
    [nightStarted],
  );
  const syncSeconds = (syncs.rows[0]!.last.getTime() - nightStarted.getTime()) / 1000;

  const counters = await admin<Record<string, { requests: number; rateLimited: number }>>(sim.url, 'GET', 'counters');
  const log = (await admin<RequestLogEntry[]>(sim.url, 'GET', 'requests')).filter(
    (e) => e.time >= nightStarted.getTime(),
  );
  const counted = Object.values(counters).reduce((sum, c) => sum + c.requests, 0);
  const http429 = Object.values(counters).reduce((sum, c) => sum + c.rateLimited, 0);
  if (log.length < counted) console.error(`request log holds ${log.length} of ${counted} requests: bound understated`);
  const bound = budgetBound(log, counted, uidOfKey);
  const purposes = await nightPurposes(runtime.pool, nightStarted, log);
  const perAccount = (n: number) => (n / ACCOUNTS).toFixed(1);

  console.log('');
  console.log(
    'bench:fleet-night (one nightly run of accounts already synced; simulator with real limits, own process)',
  );
  console.log(
    '| accounts | workers x slots | night wall s | syncs done s | bound s (budget / per-IP) | wall / bound | HTTP 429 | requests | reports passed |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  console.log(
    `| ${ACCOUNTS} | ${WORKERS}x${config.workerConcurrency} | ${wallSeconds.toFixed(1)} | ${syncSeconds.toFixed(1)} | ${bound.boundSeconds.toFixed(1)} (${bound.budgetBound.toFixed(1)} / ${bound.ipBound.toFixed(1)}) | ${(wallSeconds / bound.boundSeconds).toFixed(2)} | ${http429} | ${counted} | ${night.passed} of ${night.reports} |`,
  );
  console.log('');
  console.log('| endpoint | requests in the night | per account | sync | re-count | anchor | other |');
  console.log('|---|---|---|---|---|---|---|');
  const total = { path: 'all', total: 0, sync: 0, recount: 0, anchor: 0, other: 0 };
  for (const p of purposes) {
    for (const k of ['total', 'sync', 'recount', 'anchor', 'other'] as const) total[k] += p[k];
  }
  for (const p of [...purposes, total]) {
    console.log(
      `| ${p.path} | ${p.total} | ${perAccount(p.total)} | ${perAccount(p.sync)} | ${perAccount(p.recount)} | ${perAccount(p.anchor)} | ${perAccount(p.other)} |`,
    );
  }
  console.log('');
  console.log('| process (CPU over the night, /proc) | CPU s | per account-night, ms | cores busy (CPU / wall) |');
  console.log('|---|---|---|---|');
  for (const [name, seconds] of Object.entries(cpuSeconds)) {
    console.log(
      `| ${name} | ${seconds.toFixed(1)} | ${((seconds / ACCOUNTS) * 1000).toFixed(1)} | ${(seconds / wallSeconds).toFixed(2)} |`,
    );
  }
  console.log(
    `set-up (unmeasured, ${SETUP_WORKERS} workers): backfill of ${SETUP_DAYS} days ${backfillSeconds.toFixed(1)} s, with the first reconciliations ${setupSeconds.toFixed(1)} s`,
  );
  console.log(`busiest budget: ${bound.busiest}`);
  console.log(
    `page-fill evidence at the night's start (a short page ends a window): ${filled.join(', ') || 'none'}; the other endpoints ask each window's empty page`,
  );
  console.log(
    `load average (1 min) ${loadBefore.toFixed(1)} at the night's start, ${loadAfter.toFixed(1)} at its end, ${os.cpus().length} cores`,
  );
  console.log('');
  console.log(
    JSON.stringify({
      bench: 'fleet-night',
      accounts: ACCOUNTS,
      workers: WORKERS,
      slotsPerWorker: config.workerConcurrency,
      wallSeconds: round(wallSeconds),
      syncSeconds: round(syncSeconds),
      boundSeconds: round(bound.boundSeconds),
      budgetBoundSeconds: round(bound.budgetBound),
      ipBoundSeconds: round(bound.ipBound),
      wallOverBound: round(wallSeconds / bound.boundSeconds, 2),
      http429,
      requests: counted,
      requestsPerAccount: round(counted / ACCOUNTS, 2),
      perAccountByPurpose: Object.fromEntries(
        (['sync', 'recount', 'anchor', 'other'] as const).map((k) => [k, round(total[k] / ACCOUNTS, 2)]),
      ),
      perAccountByEndpoint: Object.fromEntries(purposes.map((p) => [p.path, round(p.total / ACCOUNTS, 2)])),
      reports: night.reports,
      reportsPassed: night.passed,
      cpuSeconds: Object.fromEntries(Object.entries(cpuSeconds).map(([k, v]) => [k, round(v, 2)])),
      cpuMsPerAccountNight: Object.fromEntries(
        Object.entries(cpuSeconds).map(([k, v]) => [k, round((v / ACCOUNTS) * 1000, 1)]),
      ),
      setupSeconds: round(setupSeconds),
      pageFillEvidence: filled,
      loadAverage: [round(loadBefore), round(loadAfter)],
    }),
  );
} finally {
  await Promise.all(workers.map(stopProcess));
  const keys = await runtime.redis.keys(`${prefix}:*`);
  if (keys.length > 0) await runtime.redis.del(...keys);
  await runtime.close();
  await sim.stop();
  await dropDatabase(databaseUrl);
}
