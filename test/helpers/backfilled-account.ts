import { createRuntime } from '../../jobs/composition/create-runtime.ts';
import { type RunningWorkers, startWorkers, type WorkerOptions } from '../../jobs/composition/workers.ts';
import type { Runtime } from '../../jobs/runtime.ts';
import { loadConfig } from '../../src/config/config.ts';
import { RateBudget } from '../../src/exchange/index.ts';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import { backfillUntilDone } from './backfill-done.ts';
import { randomPrefix } from './test-redis.ts';

const DAY = 86_400_000;

export interface BackfilledAccount {
  /** The simulator, at the exchange's own rate limits (a reconciliation waits for its spot budget). */
  sim: RunningSimulator;
  runtime: Runtime;
  /** The simulator's demo account, registered as `main`. */
  accountId: string;
  /** The in-process workers that read the history: still running, for the test to use or close. */
  workers: RunningWorkers;
}

/**
 * Something to reconcile: a runtime on the test's database and Redis, under a queue prefix of its
 * own, with the simulator's tiny demo account registered as `main` and its last 20 days of spot
 * history backfilled by in-process workers.
 */
export async function startBackfilledAccount(options: {
  databaseUrl: string;
  redisUrl: string;
  label: string;
  /** The workers' options beyond concurrency 2 (run listeners on the runtime's pool, say). */
  workers?: (runtime: Runtime) => WorkerOptions;
}): Promise<BackfilledAccount> {
  const sim = await startSimulator({ scale: 'tiny', rateLimits: { enabled: true } });
  const config = loadConfig({
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
  });
  // A prefix QUEUE_PREFIX accepts too, so worker processes a test spawns share the runtime's queues.
  const runtime = createRuntime(config, { prefix: randomPrefix(options.label).replaceAll(':', '-') });
  const account = await runtime.accounts.add({
    name: 'main',
    baseUrl: sim.url,
    ...sim.demo,
    isBrokerParent: true,
    isUnifiedAccount: true,
  });
  const workers = startWorkers(runtime, { concurrency: 2, ...options.workers?.(runtime) });
  const now = Date.now();
  await backfillUntilDone(runtime, { account: 'main', stream: 'spot', from: now - 20 * DAY, to: now, now }, 60_000);
  return { sim, runtime, accountId: account.id, workers };
}

/**
 * Spends the account's spot budget for the next `ms` (as after a 429): a reconciliation started now
 * waits for it, so its job leaves the worker slot (delayed) before the run asks the exchange.
 */
export async function spendSpotBudget(account: BackfilledAccount, ms: number): Promise<void> {
  const { runtime, sim } = account;
  await new RateBudget(runtime.redis, { prefix: `${runtime.prefix}:rate` }).pause(`spotRecord:uid:${sim.demo.uid}`, ms);
}
