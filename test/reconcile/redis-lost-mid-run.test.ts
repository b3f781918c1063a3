import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { QUEUE } from '../../jobs/definitions.ts';
import { enqueueReconciliation } from '../../jobs/reconcile/enqueue-reconciliation.ts';
import type { Runtime } from '../../jobs/runtime.ts';
import { alertOnRuns } from '../../src/app/observability/alert-on-runs.ts';
import type { Alert, AlertSender } from '../../src/app/observability/alert-sender.ts';
import { type BackfilledAccount, spendSpotBudget, startBackfilledAccount } from '../helpers/backfilled-account.ts';
import { type OwnRedis, startOwnRedis } from '../helpers/own-redis.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const db = useTestDatabase('redislostrun');
let redis: OwnRedis;
let account: BackfilledAccount;
let runtime: Runtime;
let accountId: string;
const alerts: Alert[] = [];
const sender: AlertSender = { send: (alert) => alerts.push(alert), settled: async () => undefined };

beforeAll(async () => {
  // Its own redis-server on a random port: this test flushes it and kills it, never the shared one.
  redis = await startOwnRedis();
  account = await startBackfilledAccount({
    databaseUrl: db.url,
    redisUrl: redis.url,
    label: 'redislostrun',
    workers: (runtime) => ({ runListeners: [alertOnRuns(runtime.pool, sender)] }),
  });
  ({ runtime, accountId } = account);
  // One stored record lost: the window re-counts find it missing, so every run's report FAILS.
  await runtime.pool.query(
    `DELETE FROM spot_record WHERE ctid IN (SELECT ctid FROM spot_record WHERE account_id = $1 LIMIT 1)`,
    [accountId],
  );
}, 90_000);
afterAll(async () => {
  await account?.workers.close();
  await runtime?.close();
  await account?.sim.close();
  await redis?.stop();
});

/** Enqueues the account's reconciliation with its spot budget spent a while, and waits until its job has left the slot. */
async function reconciliationWaitingForBudget() {
  await spendSpotBudget(account, 4_000);
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
