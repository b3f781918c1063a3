/**
 * bench:nightly — what one night costs an account, by the size of its history.
 *
 * Two accounts read the same simulator account (so the same daily activity, and the simulator's
 * truth for each new night), one with a stored history 10x the other's. The older history is
 * generated in the database the way bench:gains generates it (trades in blocks of ten orders of
 * BTC, ETH and SOL against USDT, interest, withdrawals), BENCH_RECORDS_PER_DAY a day, with each
 * coin's balance chained into the simulator's first record of that coin and done sync windows
 * over it, so every check passes on it. Then both accounts sync the simulator's year, run one
 * night unmeasured (their state after it: price watermark, verified chains), and the simulator's
 * clock moves a day at a time: BENCH_NIGHTS measured nights (3), the accounts taking turns to go
 * first, their figures summed (one night's CPU is a few tenths of a second: the machine's noise is
 * as large as the difference measured), each step as the nightly job runs it (the sync's
 * windows by in-process workers, the trade-implied price refresh, the reconciliation with
 * `recent`).
 *
 * Per step: Postgres blocks (shared hits + reads, and temp) of the bench's database, Postgres
 * backend CPU, this process's CPU, exchange requests (the simulator's counters); last line JSON
 * with blocksRatio and cpuRatio, big night over small night (target <= 1.2).
 *
 *   npm run bench:nightly   (BENCH_SMALL_HISTORY=30000: records generated for the small account beside the
 *                            simulator's year; BENCH_SCALE=demo: the simulator's scale)
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';

import pg from 'pg';

import { createRuntime } from '../jobs/composition/create-runtime.ts';
import { startWorkers } from '../jobs/composition/workers.ts';
import type { Runtime } from '../jobs/runtime.ts';
import { refreshAccountTradePrices } from '../src/app/services/after-sync.ts';
import { startBackfill } from '../src/app/services/backfill.ts';
import { planAndEnqueueSync } from '../src/app/services/plan-and-enqueue-sync.ts';
import { loadConfig } from '../src/config/config.ts';
import { dropDatabase } from '../src/db/ensure-database.ts';
import { migrateDatabase } from '../src/db/migrations.ts';
import { createRootLogger, setRootLogger } from '../src/logging/logger.ts';
import { runReconciliation } from '../src/reconcile/run-reconciliation.ts';
import { spawnSimulator } from '../src/simulator/child-simulator.ts';
import { measureStep, type StepCounters } from './lib/night-counters.ts';

const SERVER = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SMALL_HISTORY = Number(process.env.BENCH_SMALL_HISTORY ?? 30_000);
const RECORDS_PER_DAY = Number(process.env.BENCH_RECORDS_PER_DAY ?? 3_000);
/** The simulator's spot records a year (its daily activity is 1/365 of it). */
const SIM_SCALE = process.env.BENCH_SCALE ?? 'demo';
const RATE_FACTOR = 50;
const DAY = 86_400_000;
const STEPS = ['sync', 'prices', 'reconcile'] as const;
/** Measured nights per account (the figures are their sums). */
const NIGHTS = Number(process.env.BENCH_NIGHTS ?? 3);
type Step = (typeof STEPS)[number];

async function admin<T>(base: string, method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base}/__sim/${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`simulator ${method} ${route}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

async function requestCount(simUrl: string): Promise<number> {
  const counters = await admin<Record<string, { requests: number }>>(simUrl, 'GET', 'counters');
  return Object.values(counters).reduce((sum, c) => sum + c.requests, 0);
}

async function waitForWindows(runtime: Runtime, ids: string[]): Promise<void> {
  for (;;) {
    const { rows } = await runtime.pool.query<{ open: number; failed: number }>(
      `SELECT count(*) FILTER (WHERE status NOT IN ('done', 'failed'))::int AS open,
              count(*) FILTER (WHERE status = 'failed')::int AS failed
         FROM sync_window WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    if (rows[0]!.failed > 0) throw new Error(`${rows[0]!.failed} windows failed`);
    if (rows[0]!.open === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

// Two records per k (legs 1 and 0), as bench:gains; ts evenly spaced over [start, end), ids from the
// ts (below every simulator id, which is ts * 1000 + sequence of later instants). Each coin's balance
// is the running sum of amount + fee, offset so that the chain ends just before the simulator's first
// record of that coin ($5: coins, $6: the balance before that first record).
const SEED = `
  WITH gen AS (
    SELECT r.*
    FROM generate_series(1::bigint, $2::bigint) AS g
    CROSS JOIN LATERAL (SELECT (g + 1) / 2 AS k, g % 2 AS leg) AS a
    CROSS JOIN LATERAL (SELECT (ARRAY['BTC', 'ETH', 'SOL'])[1 + (k / 10) % 3] AS coin, k % 10 AS phase,
        round((ARRAY[60000, 3000, 150])[1 + (k / 10) % 3]::numeric
              * (1 + ((k * 7919) % 2001 - 1000)::numeric / 10000), 2) AS price,
        (ARRAY[0.01, 0.2, 5])[1 + (k / 10) % 3]::numeric * (1 + (k % 10) % 4) AS qty,
        $3::bigint + (g - 1) * $4::bigint AS ms) AS b
    CROSS JOIN LATERAL (SELECT
        (ms * 1000 + leg)::text AS id,
        timestamptz 'epoch' + ms * interval '1 millisecond' AS ts,
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
             WHEN phase = 9 AND leg = 0 THEN -0.1 ELSE 0 END AS fee) AS r
  ),
  offsets AS (
    SELECT g.coin, coalesce(t.before, 0) - sum(g.amount + g.fee) AS offset_
      FROM gen g LEFT JOIN unnest($5::text[], $6::numeric[]) AS t(coin, before) ON t.coin = g.coin
     GROUP BY g.coin, t.before
  )
  INSERT INTO spot_record (account_id, record_id, coin, spot_tax_type, amount, fee, balance, biz_order_id, ts, raw)
  SELECT $1::uuid, g.id, g.coin, g.type, g.amount, g.fee,
         o.offset_ + sum(g.amount + g.fee) OVER (PARTITION BY g.coin ORDER BY g.ts, length(g.id), g.id),
         g.biz, g.ts,
         jsonb_build_object('id', g.id, 'coin', g.coin, 'spotTaxType', g.type, 'amount', g.amount::text,
           'fee', g.fee::text, 'bizOrderId', g.biz)
    FROM gen g JOIN offsets o USING (coin)`;

/** The generated history before `end`, chained into the stored (simulator) records, and done windows over it. */
async function seedHistory(pool: pg.Pool, accountId: string, records: number, end: number): Promise<void> {
  const spacing = Math.floor(DAY / RECORDS_PER_DAY);
  const start = end - records * spacing;
  const firsts = await pool.query<{ coin: string; before: string }>(
    `SELECT DISTINCT ON (coin) coin, (balance - amount - fee)::text AS before
       FROM spot_record WHERE account_id = $1 ORDER BY coin, ts, length(record_id), record_id COLLATE "C"`,
    [accountId],
  );
  await pool.query(SEED, [
    accountId,
    records,
    start,
    spacing,
    firsts.rows.map((r) => r.coin),
    firsts.rows.map((r) => r.before),
  ]);
  // 30-day spot windows over it, done long ago, as a backfill leaves them.
  await pool.query(
    `INSERT INTO sync_window (id, account_id, stream, scope, window_start, window_end, status, pages, rows,
                              started_at, finished_at, updated_at)
     SELECT gen_random_uuid(), $1, 'spot', '', timestamptz 'epoch' + s * interval '1 millisecond',
            timestamptz 'epoch' + least(s + 30 * $4::bigint, $3::bigint) * interval '1 millisecond', 'done', 1, 0,
            now() - interval '30 days', now() - interval '30 days', now()
       FROM generate_series($2::bigint, $3::bigint - 1, 30 * $4::bigint) AS s`,
    [accountId, start, end, DAY],
  );
}

setRootLogger(createRootLogger({ level: 'silent' }));
const url = new URL(SERVER);
url.pathname = `/ll_bench_nightly_${randomBytes(4).toString('hex')}`;
const databaseUrl = url.toString();
const prefix = `llbench-${randomBytes(4).toString('hex')}`;
const loadBefore = os.loadavg()[0]!;
await migrateDatabase(databaseUrl);
const today = Math.floor(Date.now() / DAY) * DAY;
// The simulator's clock starts two days back, frozen: the year is synced there, one night runs a day
// later, and the measured night a day after that.
const simStart = Date.now() - 2 * DAY;
const sim = await spawnSimulator([
  '--port',
  '0',
  '--seed',
  '42',
  '--scale',
  SIM_SCALE,
  '--anchor',
  String(today),
  '--now',
  String(simStart),
  '--rate-limit-factor',
  String(RATE_FACTOR),
  '--admin',
]);
const config = loadConfig({
  DATABASE_URL: databaseUrl,
  REDIS_URL,
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  EXCHANGE_RATE_FACTOR: String(RATE_FACTOR),
});
// The client's clock follows the simulator's, as production follows the exchange's.
let simNow = simStart;
const runtime = createRuntime(config, { prefix, clientOverrides: { clock: () => simNow } });
const monitor = new pg.Client({ connectionString: databaseUrl });
await monitor.connect();
const workers = startWorkers(runtime, { concurrency: 4 });
try {
  const accounts: Record<'small' | 'big', string> = { small: '', big: '' };
  const historyEnd = simStart - 400 * DAY;
  for (const name of ['small', 'big'] as const) {
    const added = await runtime.accounts.add({
      name,
      baseUrl: sim.url,
      ...sim.demo,
      isBrokerParent: true,
      isUnifiedAccount: true,
    });
    accounts[name] = added.id;
    const backfill = await startBackfill(runtime, {
      account: name,
      stream: 'all',
      from: historyEnd,
      to: simStart,
      now: simStart,
    });
    await waitForWindows(
      runtime,
      backfill.windows.map((w) => w.id),
    );
    // Both hold the simulator's year; the generated part makes the big history 10x the small one.
    const year = await runtime.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM spot_record WHERE account_id = $1`,
      [added.id],
    );
    const seeded = name === 'small' ? SMALL_HISTORY : 10 * (year.rows[0]!.n + SMALL_HISTORY) - year.rows[0]!.n;
    await seedHistory(runtime.pool, added.id, seeded, historyEnd);
  }
  // The year's windows finished long ago, as an account's history did.
  await runtime.pool.query(
    `UPDATE sync_window SET started_at = started_at - interval '30 days', finished_at = finished_at - interval '30 days'`,
  );

  const night = async (accountId: string, measured: boolean) => {
    const account = await runtime.accounts.getById(accountId);
    const steps: Record<Step, () => Promise<unknown>> = {
      sync: async () => {
        const sync = await planAndEnqueueSync(runtime, account);
        await waitForWindows(
          runtime,
          sync.windows.map((w) => w.id),
        );
        return sync.windows.length;
      },
      prices: () => refreshAccountTradePrices(runtime, accountId),
      reconcile: async () => {
        const report = await runReconciliation(runtime, { accountId, recount: 'recent' });
        // The generated older history holds no spot side of the simulator's futures transfers, so
        // the futures-ledger check fails by construction here; any other failing check is news.
        const failed = report.checks.filter((c) => !c.passed && c.name !== 'futures-ledger');
        if (failed.length > 0) console.error(`reconciliation failed:\n${report.summary}`);
        return report.checks.map((c) => `${c.name}: ${c.examined}`);
      },
    };
    const figures = {} as Record<Step, StepCounters & { requests: number; wallSeconds: number }>;
    for (const step of STEPS) {
      if (!measured) {
        await steps[step]();
        continue;
      }
      const requestsBefore = await requestCount(sim.url);
      const started = performance.now();
      const { counters } = await measureStep(monitor, steps[step]);
      const wallSeconds = (performance.now() - started) / 1000;
      figures[step] = { ...counters, wallSeconds, requests: (await requestCount(sim.url)) - requestsBefore };
    }
    return figures;
  };

  simNow += DAY;
  await admin(sim.url, 'POST', 'clock', { now: simNow });
  for (const name of ['small', 'big'] as const) await night(accounts[name], false);
  // Measured: autovacuum would add its blocks to whichever step it fell in.
  await runtime.pool.query('VACUUM ANALYZE');
  await runtime.pool.query(
    `DO $$ DECLARE t text; BEGIN
       FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = 'public' LOOP
         EXECUTE format('ALTER TABLE %I SET (autovacuum_enabled = false)', t);
       END LOOP; END $$`,
  );
  // Several measured nights, the accounts taking turns to go first: a single night's CPU is a few
  // tenths of a second, which the machine's other work moves by as much as the history's size does.
  type Figures = Awaited<ReturnType<typeof night>>;
  const nights: { small: Figures; big: Figures }[] = [];
  for (let n = 0; n < NIGHTS; n++) {
    simNow += DAY;
    await admin(sim.url, 'POST', 'clock', { now: simNow });
    const order = n % 2 === 0 ? (['small', 'big'] as const) : (['big', 'small'] as const);
    const figures = {} as { small: Figures; big: Figures };
    for (const name of order) figures[name] = await night(accounts[name], true);
    nights.push(figures);
  }
  const summed = (name: 'small' | 'big') =>
    Object.fromEntries(
      STEPS.map((step) => [
        step,
        nights.reduce(
          (sum, f) => ({
            blocks: sum.blocks + f[name][step].blocks,
            tempBlocks: sum.tempBlocks + f[name][step].tempBlocks,
            pgCpuSeconds: sum.pgCpuSeconds + f[name][step].pgCpuSeconds,
            nodeCpuSeconds: sum.nodeCpuSeconds + f[name][step].nodeCpuSeconds,
            wallSeconds: sum.wallSeconds + f[name][step].wallSeconds,
            requests: sum.requests + f[name][step].requests,
          }),
          { blocks: 0, tempBlocks: 0, pgCpuSeconds: 0, nodeCpuSeconds: 0, wallSeconds: 0, requests: 0 },
        ),
      ]),
    ) as Figures;
  const measured = { small: summed('small'), big: summed('big') };
  const history = await runtime.pool.query<{ name: string; records: number }>(
    `SELECT a.name, count(*)::int AS records FROM spot_record s JOIN account a ON a.id = s.account_id GROUP BY a.name`,
  );
  const records = Object.fromEntries(history.rows.map((r) => [r.name, r.records]));

  const total = (f: Record<Step, StepCounters & { requests: number }>) => ({
    blocks: STEPS.reduce((s, k) => s + f[k].blocks + f[k].tempBlocks, 0),
    pgCpu: STEPS.reduce((s, k) => s + f[k].pgCpuSeconds, 0),
    nodeCpu: STEPS.reduce((s, k) => s + f[k].nodeCpuSeconds, 0),
    requests: STEPS.reduce((s, k) => s + f[k].requests, 0),
  });
  const small = total(measured.small);
  const big = total(measured.big);
  const cell = (f: StepCounters & { requests: number }) =>
    `${f.blocks}${f.tempBlocks > 0 ? ` (+${f.tempBlocks})` : ''} / ${f.pgCpuSeconds.toFixed(2)} / ${f.nodeCpuSeconds.toFixed(2)} / ${f.requests}`;
  console.log('');
  console.log(`bench:nightly (${NIGHTS} nights summed; blocks (+temp) / Postgres CPU s / Node CPU s / requests)`);
  console.log(`| step | small: ${records.small} records | big: ${records.big} records |`);
  console.log('|---|---|---|');
  for (const step of STEPS) console.log(`| ${step} | ${cell(measured.small[step])} | ${cell(measured.big[step])} |`);
  const line = (t: typeof small) => `${t.blocks} / ${t.pgCpu.toFixed(2)} / ${t.nodeCpu.toFixed(2)} / ${t.requests}`;
  console.log(`| night total | ${line(small)} | ${line(big)} |`);
  const cpuOf = (f: Figures) => STEPS.reduce((sum, k) => sum + f[k].pgCpuSeconds + f[k].nodeCpuSeconds, 0);
  const nightRatios = nights.map((f) => cpuOf(f.big) / cpuOf(f.small));
  console.log(`CPU big / small per night: ${nightRatios.map((r) => r.toFixed(2)).join(', ')}`);
  const loadAfter = os.loadavg()[0]!;
  console.log(`load average (1 min) ${loadBefore.toFixed(1)} at the start, ${loadAfter.toFixed(1)} at the end`);
  const round = (n: number, d = 2) => Number(n.toFixed(d));
  console.log(
    JSON.stringify({
      bench: 'nightly',
      records,
      blocksRatio: round(big.blocks / small.blocks),
      cpuRatio: round((big.pgCpu + big.nodeCpu) / (small.pgCpu + small.nodeCpu)),
      pgCpuRatio: round(big.pgCpu / small.pgCpu),
      requestsRatio: round(big.requests / small.requests),
      nights: NIGHTS,
      cpuRatioPerNight: nightRatios.map((r) => round(r)),
      steps: Object.fromEntries(
        STEPS.map((s) => [
          s,
          {
            blocks: [
              measured.small[s].blocks + measured.small[s].tempBlocks,
              measured.big[s].blocks + measured.big[s].tempBlocks,
            ],
            pgCpu: [round(measured.small[s].pgCpuSeconds), round(measured.big[s].pgCpuSeconds)],
            nodeCpu: [round(measured.small[s].nodeCpuSeconds), round(measured.big[s].nodeCpuSeconds)],
            requests: [measured.small[s].requests, measured.big[s].requests],
          },
        ]),
      ),
      loadAverage: [round(loadBefore, 1), round(loadAfter, 1)],
    }),
  );
} finally {
  await workers.close();
  await monitor.end();
  const keys = await runtime.redis.keys(`${prefix}:*`);
  if (keys.length > 0) await runtime.redis.del(...keys);
  await runtime.close();
  await sim.stop();
  await dropDatabase(databaseUrl);
}
