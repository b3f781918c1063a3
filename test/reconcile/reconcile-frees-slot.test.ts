import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createRuntime } from '../../jobs/composition/create-runtime.ts';
import { type RunningWorkers, startWorkers } from '../../jobs/composition/workers.ts';
import { QUEUE } from '../../jobs/definitions.ts';
import { enqueueReconciliation } from '../../jobs/reconcile/enqueue-reconciliation.ts';
import type { Runtime } from '../../jobs/runtime.ts';
import { startBackfill } from '../../src/app/services/backfill.ts';
import { loadConfig } from '../../src/config/config.ts';
import { RateBudget } from '../../src/exchange/index.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { deleteKeys, randomPrefix, TEST_REDIS_URL } from '../helpers/test-redis.ts';

const DAY = 86_400_000;
/** How long the first account's spot budget stays spent. */
const PAUSE_MS = 10_000;
const db = useTestDatabase('reconcileslot');
const budgetPrefix = randomPrefix('budget');
let sim: RunningSimulator;
let runtime: Runtime;
let workers: RunningWorkers | undefined;
const accounts: Record<'first' | 'second', string> = { first: '', second: '' };

beforeAll(async () => {
  // The exchange's own limits (spot-record: 1 request per second per UID).
  sim = await startSimulator({ scale: 'tiny', rateLimits: { enabled: true } });
  const config = loadConfig({ DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, NODE_ENV: 'test', LOG_LEVEL: 'silent' });
  runtime = createRuntime(config, {
    prefix: randomPrefix('reconcileslot').replaceAll(':', '-'),
    clientOverrides: { rateBudget: { prefix: budgetPrefix } },
  });
  const second = sim.createAccount({ broker: true, uta: true, withData: true });
  for (const [name, credentials] of [
    ['first', sim.demo],
    ['second', second],
  ] as const) {
    const account = await runtime.accounts.add({
      name,
      baseUrl: sim.url,
      ...credentials,
      isBrokerParent: true,
      isUnifiedAccount: true,
    });
    accounts[name] = account.id;
  }
  workers = startWorkers(runtime, { concurrency: 1 });
  const now = Date.now();
  const ids: string[] = [];
  for (const account of ['first', 'second']) {
    const started = await startBackfill(runtime, { account, stream: 'spot', from: now - 20 * DAY, to: now, now });
    ids.push(...started.windows.map((w) => w.id));
  }
  for (const deadline = Date.now() + 60_000; ;) {
    const progress = await windowProgress(runtime.pool, ids);
    if (progress.every((p) => p.done === p.total)) break;
    if (Date.now() > deadline) throw new Error(`backfill not finished: ${JSON.stringify(progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 90_000);
afterAll(async () => {
  await workers?.close();
  await deleteKeys(runtime.redis, runtime.prefix, budgetPrefix);
  await runtime.close();
  await sim.close();
});

describe('a reconciliation waiting for its rate budget', () => {
  it("leaves its worker slot: with one slot, a second account's reconciliation completes meanwhile, and the first completes when its budget is back", async () => {
    // The first account's spot budget is spent for a while (as after a 429 on a busy UID).
    await new RateBudget(runtime.redis, { prefix: budgetPrefix }).pause(`spotRecord:uid:${sim.demo.uid}`, PAUSE_MS);
    const paused = Date.now();
    const queue = runtime.queues.get(QUEUE.reconcile);
    // `all` re-reads every window: both need their spot budgets. The first is enqueued first.
    const first = await enqueueReconciliation(runtime, accounts.first, { recount: 'all' });
    const second = await enqueueReconciliation(runtime, accounts.second, { recount: 'all' });

    const state = async (id: string) => (await queue.getJob(id))?.getState();
    for (;;) {
      if ((await state(second.id!)) === 'completed') break;
      if (Date.now() - paused > PAUSE_MS) throw new Error(`second not completed while the first waited`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The only slot ran the second account's reconciliation; the first waits as a delayed job.
    expect(await state(first.id!)).toBe('delayed');

    for (;;) {
      const now = await state(first.id!);
      if (now === 'completed' || now === 'failed') break;
      if (Date.now() - paused > PAUSE_MS + 30_000) throw new Error(`first not finished: ${now}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const [firstJob, secondJob] = await Promise.all([queue.getJob(first.id!), queue.getJob(second.id!)]);
    expect(await firstJob!.getState()).toBe('completed');
    // Brought back by its run as it settled, long before the delay it left with (30 s) ran out.
    expect(firstJob!.finishedOn! - paused).toBeLessThan(PAUSE_MS + 10_000);
    expect(firstJob!.finishedOn!).toBeGreaterThan(secondJob!.finishedOn!);
    for (const job of [firstJob!, secondJob!]) {
      expect(job.returnvalue).toMatchObject({ passed: true, failedChecks: [] });
      const report = await db.prisma.reconciliationReport.findUniqueOrThrow({
        where: { id: job.returnvalue.reportId },
      });
      expect(report).toMatchObject({ accountId: job.data.accountId, recount: 'all', passed: true });
    }
    // One report each: the run the first job left behind was not started twice.
    expect(await db.prisma.reconciliationReport.count()).toBe(2);
    expect(sim.counters.get()['/api/v2/tax/spot-record']?.rateLimited ?? 0).toBe(0);
  });
});
