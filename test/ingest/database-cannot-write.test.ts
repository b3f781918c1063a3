import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createRuntime } from '../../jobs/composition/create-runtime.ts';
import { type RunningWorkers, startWorkers } from '../../jobs/composition/workers.ts';
import { QUEUE } from '../../jobs/definitions.ts';
import type { Runtime } from '../../jobs/runtime.ts';
import { createMetricsRegistry } from '../../src/app/observability/scrape-metrics.ts';
import { startBackfill } from '../../src/app/services/backfill.ts';
import { loadConfig } from '../../src/config/config.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import { runCliLive } from '../helpers/cli.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { randomPrefix, TEST_REDIS_URL } from '../helpers/test-redis.ts';

const DAY = 86_400_000;
const db = useTestDatabase('cannotwrite');
const prefix = randomPrefix('cannotwrite').replaceAll(':', '-');
let sim: RunningSimulator;
let planner: Runtime;
const opened: Runtime[] = [];
let workers: RunningWorkers | undefined;

/**
 * A runtime of its own: its pool's sessions start with the database's settings of the moment, so
 * one opened after `default_transaction_read_only = on` cannot write, as on a full disk.
 */
function runtimeNow(): Runtime {
  const config = loadConfig({ DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, NODE_ENV: 'test', LOG_LEVEL: 'silent' });
  const runtime = createRuntime(config, {
    prefix,
    jobOptions: { ingest: { attempts: 2, backoff: { type: 'fixed', delay: 100 } } },
  });
  opened.push(runtime);
  return runtime;
}

/** Only the test's own database (from the server's `postgres` database): every other one keeps writing. */
async function readOnly(on: boolean) {
  const admin = new URL(db.url);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`ALTER DATABASE "${name}" SET default_transaction_read_only = ${on ? 'on' : 'off'}`);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  sim = await startSimulator({ scale: 'tiny' });
  planner = runtimeNow();
  await planner.accounts.add({
    name: 'main',
    baseUrl: sim.url,
    ...sim.demo,
    isBrokerParent: true,
    isUnifiedAccount: true,
  });
});
afterAll(async () => {
  await workers?.close();
  await readOnly(false).catch(() => undefined);
  const keys = await planner.redis.keys(`${prefix}:*`);
  if (keys.length > 0) await planner.redis.del(...keys);
  for (const runtime of opened) await runtime.close();
  await sim?.close();
});

describe('a database that cannot write (read-only, as a full disk)', () => {
  it('fails the windows’ jobs with the cause, shows it in status and the metrics without writing, and loses nothing once it writes again', async () => {
    const now = Date.now();
    // Planned and enqueued while the database writes; no worker yet.
    const started = await startBackfill(planner, {
      account: 'main',
      stream: 'spot',
      from: now - 60 * DAY,
      to: now,
      now,
    });
    expect(started.enqueued).toBeGreaterThanOrEqual(2);
    await readOnly(true);

    const stuck = runtimeNow();
    workers = startWorkers(stuck, { concurrency: 2 });
    const queue = stuck.queues.get(QUEUE.ingest);
    const failedJobs = async () => (await queue.getJobs(['failed'])).filter((j) => j.name !== undefined);
    for (const deadline = Date.now() + 60_000; (await failedJobs()).length < started.enqueued;) {
      if (Date.now() > deadline) throw new Error(`jobs not failed: ${JSON.stringify(await queue.getJobCounts())}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // The job carries the cause (its window row could not take it).
    for (const job of await failedJobs()) {
      expect(job.failedReason).toMatch(
        /^the database cannot write \(SQLSTATE 25006\): cannot execute (UPDATE|INSERT) in a read-only transaction$/,
      );
    }
    // The process's metric, which needs no database write.
    const metrics = await createMetricsRegistry(stuck).metrics();
    expect(metrics).toMatch(/ledgerline_database_write_failures_total\{code="25006"\} [1-9]/);
    // `ledgerline status` says so (read-only is no obstacle to reading) and exits 1.
    const env = { DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix };
    const status = await runCliLive(['status'], env);
    expect(status.stdout).toMatch(
      /DATABASE CANNOT WRITE, last refused at .*: windows fail until it can \(SQLSTATE 25006: cannot execute/,
    );
    expect(status.status).toBe(1);
    await workers.close();
    workers = undefined;

    // Writable again: the same backfill finishes every window, and every record is stored once.
    await readOnly(false);
    const back = runtimeNow();
    workers = startWorkers(back, { concurrency: 2 });
    const again = await startBackfill(back, { account: 'main', stream: 'spot', from: now - 60 * DAY, to: now, now });
    expect(again.enqueued).toBe(started.enqueued);
    for (const deadline = Date.now() + 60_000; ;) {
      const progress = await windowProgress(
        back.pool,
        again.windows.map((w) => w.id),
      );
      if (progress.every((p) => p.done === p.total)) break;
      if (Date.now() > deadline) throw new Error(`backfill not finished: ${JSON.stringify(progress)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const start = Math.min(...again.windows.map((w) => w.start));
    const end = Math.max(...again.windows.map((w) => w.end));
    const expected = sim.truth('spot').filter((r) => Number(r.ts) >= start && Number(r.ts) < end).length;
    expect(expected).toBeGreaterThan(0);
    const stored = await back.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM spot_record`);
    expect(stored.rows[0]!.n).toBe(expected);
    const cleared = await runCliLive(['status'], env);
    expect(cleared.stdout).not.toMatch(/DATABASE CANNOT WRITE/);
  }, 180_000);
});
