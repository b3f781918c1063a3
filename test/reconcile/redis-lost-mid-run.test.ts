import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createRuntime } from '../../jobs/composition/create-runtime.ts';
import { type RunningWorkers, startWorkers } from '../../jobs/composition/workers.ts';
import { QUEUE } from '../../jobs/definitions.ts';
import { enqueueReconciliation } from '../../jobs/reconcile/enqueue-reconciliation.ts';
import type { Runtime } from '../../jobs/runtime.ts';
import { alertOnRuns } from '../../src/app/observability/alert-on-runs.ts';
import type { Alert, AlertSender } from '../../src/app/observability/alert-sender.ts';
import { startBackfill } from '../../src/app/services/backfill.ts';
import { loadConfig } from '../../src/config/config.ts';
import { RateBudget } from '../../src/exchange/index.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import { type OwnRedis, startOwnRedis } from '../helpers/own-redis.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { randomPrefix } from '../helpers/test-redis.ts';

const DAY = 86_400_000;
const db = useTestDatabase('redislostrun');
let redis: OwnRedis;
let sim: RunningSimulator;
let runtime: Runtime;
let workers: RunningWorkers;
let accountId: string;
const alerts: Alert[] = [];
const sender: AlertSender = { send: (alert) => alerts.push(alert), settled: async () => undefined };

beforeAll(async () => {
  // Its own redis-server on a random port: this test flushes it and kills it, never the shared one.
  redis = await startOwnRedis();
  sim = await startSimulator({ scale: 'tiny', rateLimits: { enabled: true } });
  const config = loadConfig({ DATABASE_URL: db.url, REDIS_URL: redis.url, NODE_ENV: 'test', LOG_LEVEL: 'silent' });
  runtime = createRuntime(config, { prefix: randomPrefix('redislostrun').replaceAll(':', '-') });
  const account = await runtime.accounts.add({
    name: 'main',
    baseUrl: sim.url,
    ...sim.demo,
    isBrokerParent: true,
    isUnifiedAccount: true,
  });
  accountId = account.id;
  workers = startWorkers(runtime, { concurrency: 2, runListeners: [alertOnRuns(runtime.pool, sender)] });
  const now = Date.now();
  const started = await startBackfill(runtime, { account: 'main', stream: 'spot', from: now - 20 * DAY, to: now, now });
  for (const deadline = Date.now() + 60_000; ;) {
    const progress = await windowProgress(
      runtime.pool,
      started.windows.map((w) => w.id),
    );
    if (progress.every((p) => p.done === p.total)) break;
    if (Date.now() > deadline) throw new Error(`backfill not finished: ${JSON.stringify(progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // One stored record lost: the window re-counts find it missing, so every run's report FAILS.
  await runtime.pool.query(
    `DELETE FROM spot_record WHERE ctid IN (SELECT ctid FROM spot_record WHERE account_id = $1 LIMIT 1)`,
    [accountId],
  );
}, 90_000);
afterAll(async () => {
  await workers?.close();
  await runtime?.close();
  await sim?.close();
  await redis?.stop();
});

/** Enqueues the account's reconciliation with its spot budget spent a while, and waits until its job has left the slot. */
async function reconciliationWaitingForBudget() {
  await new RateBudget(runtime.redis, { prefix: `${runtime.prefix}:rate` }).pause(
    `spotRecord:uid:${sim.demo.uid}`,
    4_000,
  );
  const job = await enqueueReconciliation(runtime, accountId, { recount: 'all', replaceFinished: true });
  const queue = runtime.queues.get(QUEUE.reconcile);
  for (const deadline = Date.now() + 20_000; ;) {
    if ((await queue.getJob(job.id!).then((j) => j?.getState())) === 'delayed') break;
    if (Date.now() > deadline) throw new Error('the reconciliation never left its slot');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function runRows() {
  return db.prisma.run.findMany({ where: { kind: 'reconciliation' }, orderBy: { finishedAt: 'asc' } });
}

async function untilRuns(count: number) {
  for (const deadline = Date.now() + 40_000; Date.now() < deadline;) {
    if ((await runRows()).length >= count) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // Anything late (a second row) would show by now.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return runRows();
}

describe('Redis lost in the middle of a reconciliation', () => {
  it('a flush: the stored FAILED report still yields its run row and the reconciliation_failed alert', async () => {
    await reconciliationWaitingForBudget();
    await runtime.redis.flushall();

    const runs = await untilRuns(1);
    const reports = await db.prisma.reconciliationReport.findMany({ where: { accountId } });
    expect(reports).toHaveLength(1);
    expect(reports[0]!.passed).toBe(false);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'failed', accountId, detail: { reportId: reports[0]!.id } });
    await expect.poll(() => alerts.map((a) => a.event)).toEqual(['reconciliation_failed']);
    expect(alerts[0]!.text).toMatch(/reconciliation FAILED for main/);
  }, 90_000);

  it('a restart that loses everything: the run row and the alert all the same', async () => {
    await reconciliationWaitingForBudget();
    await redis.restart();

    const runs = await untilRuns(2);
    const reports = await db.prisma.reconciliationReport.findMany({
      where: { accountId },
      orderBy: { startedAt: 'asc' },
    });
    expect(reports).toHaveLength(2);
    expect(runs).toHaveLength(2);
    expect(runs[1]).toMatchObject({ status: 'failed', accountId, detail: { reportId: reports[1]!.id } });
    await expect.poll(() => alerts.map((a) => a.event)).toEqual(['reconciliation_failed', 'reconciliation_failed']);
  }, 90_000);
});
