/**
 * bench:fleet — how close a first sync of many accounts comes to what the
 * exchange's budgets allow.
 *
 * The simulator runs in its own process with its real rate limits and
 * BENCH_ACCOUNTS accounts (default 50), each with its own demo-scale history.
 * Every account is registered in a fresh database and backfilled (every
 * stream, the futures, margin and P2P ledgers included, the demo's range) by BENCH_WORKERS worker processes (default 1)
 * started as an operator would: `ledgerline worker`, default settings.
 *
 * The bound is the shortest time the budgets allow for the requests actually
 * made (the simulator's request log): the busiest (UID, endpoint) budget's
 * requests over its per-second limit, and every request over the per-IP cap
 * (6000 per minute = 100/s). wallOverBound is the wall time over that bound.
 *
 * Prints a table, then one JSON object with the figures as the last line.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import os from 'node:os';

import { createRuntime } from '../jobs/composition/create-runtime.ts';
import { startBackfill } from '../src/app/services/backfill.ts';
import { loadConfig } from '../src/config/config.ts';
import { dropDatabase } from '../src/db/ensure-database.ts';
import { migrateDatabase } from '../src/db/migrations.ts';
import { createRootLogger, setRootLogger } from '../src/logging/logger.ts';
import { spawnSimulator } from '../src/simulator/child-simulator.ts';
import type { RequestLogEntry } from '../src/simulator/request-log.ts';
import { futureRecordEndpoint } from '../src/streams/futures-ledger/endpoint.ts';
import { STREAM_DEFINITIONS, STREAMS as STREAM_NAMES } from '../src/streams/registry.ts';
import { spotRecordEndpoint } from '../src/streams/spot/endpoint.ts';
import { admin, budgetBound, registerFleet, round, startFleetWorkers, stopProcess } from './lib/fleet-kit.ts';

const SERVER = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 50);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const DAY = 86_400_000;
const STREAMS = STREAM_NAMES;

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

setRootLogger(createRootLogger({ level: 'silent' }));
const url = new URL(SERVER);
url.pathname = `/ll_bench_fleet_${randomBytes(4).toString('hex')}`;
const databaseUrl = url.toString();
const prefix = `llbench-${randomBytes(4).toString('hex')}`;
await migrateDatabase(databaseUrl);
const sim = await spawnSimulator(['--port', '0', '--seed', '42', '--scale', 'demo', '--anchor', 'today', '--admin']);
const config = loadConfig({ DATABASE_URL: databaseUrl, REDIS_URL, NODE_ENV: 'test', LOG_LEVEL: 'silent' });
const runtime = createRuntime(config, { prefix });
const workers: ChildProcess[] = [];
try {
  const { names, uidOfKey } = await registerFleet(runtime, sim, ACCOUNTS, 'fleet');
  workers.push(...(await startFleetWorkers(runtime, { databaseUrl, redisUrl: REDIS_URL, prefix, count: WORKERS })));

  await admin(sim.url, 'DELETE', 'requests');
  await admin(sim.url, 'POST', 'counters/reset');
  const day = Math.floor(Date.now() / DAY) * DAY;
  const started = Date.now();
  const loadBefore = os.loadavg()[0]!;
  const windowIds: string[] = [];
  for (const name of names) {
    const now = Date.now();
    const backfill = await startBackfill(runtime, {
      account: name,
      stream: 'all',
      from: day - 400 * DAY,
      to: now,
      now,
    });
    windowIds.push(...backfill.windows.map((w) => w.id));
  }
  const enqueuedSeconds = (Date.now() - started) / 1000;
  for (;;) {
    const { rows } = await runtime.pool.query<{ done: number; failed: number; total: number }>(
      `SELECT count(*) FILTER (WHERE status = 'done')::int AS done,
              count(*) FILTER (WHERE status = 'failed')::int AS failed,
              count(*)::int AS total
         FROM sync_window WHERE id = ANY($1::uuid[])`,
      [windowIds],
    );
    const { done, failed, total } = rows[0]!;
    if (failed > 0) throw new Error(`${failed} windows failed`);
    if (done === total) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const finished = Date.now();
  // The machine's load beside the figures: on shared cores absolute times fall with it.
  const loadAfter = os.loadavg()[0]!;
  const wallSeconds = (finished - started) / 1000;

  // Per (account, stream): when its first window was done, from the moment the first backfill was enqueued.
  const firsts = await runtime.pool.query<{ stream: string; first: Date; last: Date }>(
    `SELECT stream::text, min(finished_at) AS first, max(finished_at) AS last
       FROM sync_window WHERE id = ANY($1::uuid[]) GROUP BY account_id, stream`,
    [windowIds],
  );
  const firstWindow = Object.fromEntries(
    STREAMS.map((stream) => {
      const s = firsts.rows.filter((r) => r.stream === stream).map((r) => (r.first.getTime() - started) / 1000);
      return [stream, { p50: round(quantile(s, 0.5)), max: round(Math.max(...s)) }];
    }),
  ) as Record<(typeof STREAMS)[number], { p50: number; max: number }>;

  const counters = await admin<Record<string, { requests: number; rateLimited: number }>>(sim.url, 'GET', 'counters');
  const log = (await admin<RequestLogEntry[]>(sim.url, 'GET', 'requests')).filter((e) => e.time >= started);
  if (process.env.BENCH_LOG_FILE)
    writeFileSync(process.env.BENCH_LOG_FILE, JSON.stringify({ started, uidOfKey: [...uidOfKey], log }));
  const counted = Object.values(counters).reduce((sum, c) => sum + c.requests, 0);
  const http429 = Object.values(counters).reduce((sum, c) => sum + c.rateLimited, 0);
  if (log.length < counted) console.error(`request log holds ${log.length} of ${counted} requests: bound understated`);

  const { boundSeconds, budgetBound: budgetSeconds, ipBound, busiest } = budgetBound(log, counted, uidOfKey);
  const spotRequests = log.filter((e) => e.path === spotRecordEndpoint.path).length;
  const spotUsed = spotRequests / wallSeconds;
  // The futures ledger has a 1/s budget per UID of its own, like spot's: the bound is the busier of the two.
  const futuresRequests = log.filter((e) => e.path === futureRecordEndpoint.path).length;
  const futuresUsed = futuresRequests / wallSeconds;
  // Every history's requests, each on its own per-UID budget (the margin and P2P ledgers read beside the others).
  const perStream = Object.fromEntries(
    STREAMS.map((stream) => {
      const endpoint = STREAM_DEFINITIONS[stream].endpoint;
      const requests = log.filter((e) => e.path === endpoint.path).length;
      return [stream, { requests, perSecond: round(requests / wallSeconds, 2), budget: ACCOUNTS * endpoint.perSecond }];
    }),
  );
  const slots = config.workerConcurrency;

  console.log('');
  console.log(`bench:fleet (first sync of all streams; simulator with real limits, own process)`);
  console.log(
    '| accounts | workers x slots | wall s | bound s (budget / per-IP) | wall / bound | HTTP 429 | requests | spot req/s used of summed budget |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  console.log(
    `| ${ACCOUNTS} | ${WORKERS}x${slots} | ${wallSeconds.toFixed(1)} | ${boundSeconds.toFixed(1)} (${budgetSeconds.toFixed(1)} / ${ipBound.toFixed(1)}) | ${(wallSeconds / boundSeconds).toFixed(2)} | ${http429} | ${counted} | ${spotUsed.toFixed(2)} of ${ACCOUNTS * spotRecordEndpoint.perSecond} |`,
  );
  console.log('');
  console.log('| stream | first window done, s: median over accounts | slowest account |');
  console.log('|---|---|---|');
  for (const stream of STREAMS) console.log(`| ${stream} | ${firstWindow[stream].p50} | ${firstWindow[stream].max} |`);
  console.log(
    `load average (1 min) ${loadBefore.toFixed(1)} at the start, ${loadAfter.toFixed(1)} at the end, ${os.cpus().length} cores`,
  );
  console.log(`busiest budget: ${busiest}; enqueueing took ${enqueuedSeconds.toFixed(1)} s of the wall time`);
  console.log(
    `spot-record ${spotRequests} requests, future-record ${futuresRequests} requests (${futuresUsed.toFixed(2)}/s of ${ACCOUNTS * futureRecordEndpoint.perSecond})`,
  );
  console.log(
    `requests per stream: ${STREAMS.map((s) => `${s} ${perStream[s]!.requests} (${perStream[s]!.perSecond}/s of ${perStream[s]!.budget})`).join(', ')}`,
  );
  console.log('');
  console.log(
    JSON.stringify({
      bench: 'fleet',
      accounts: ACCOUNTS,
      workers: WORKERS,
      slotsPerWorker: slots,
      wallSeconds: round(wallSeconds),
      boundSeconds: round(boundSeconds),
      budgetBoundSeconds: round(budgetSeconds),
      ipBoundSeconds: round(ipBound),
      wallOverBound: round(wallSeconds / boundSeconds, 2),
      http429,
      requests: counted,
      spotRequestsPerSecond: round(spotUsed, 2),
      spotRequests,
      futureRecordRequests: futuresRequests,
      futureRecordRequestsPerSecond: round(futuresUsed, 2),
      requestsPerStream: perStream,
      firstWindowSeconds: firstWindow,
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
