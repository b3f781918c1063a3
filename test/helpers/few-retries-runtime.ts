import { createRuntime, scaledBudgets } from '../../jobs/composition/create-runtime.ts';
import { type RunningWorkers, startWorkers } from '../../jobs/composition/workers.ts';
import type { Runtime } from '../../jobs/runtime.ts';
import { loadConfig } from '../../src/config/config.ts';
import { deleteKeys, randomPrefix, TEST_REDIS_URL } from './test-redis.ts';

export interface FewRetriesOptions {
  databaseUrl: string;
  label: string;
  /** The client's rate budgets, scaled from the spec's by this. */
  rateFactor: number;
  /** The client's attempts per call, and the queue's per window: small, so a failing window fails fast. */
  clientAttempts: number;
  queueAttempts: number;
  /** More configuration, as environment variables (EXCHANGE_TIMEOUT_MS, say). */
  env?: Record<string, string>;
}

export interface FewRetriesRuntime {
  runtime: Runtime;
  /** The client's rate budgets' key prefix (a test may spend a budget). */
  budgetPrefix: string;
  /** Starts the in-process workers (concurrency 4), closed by `close`. */
  startWorkers(): RunningWorkers;
  /** Closes the workers, removes the queues' and budgets' keys, closes the runtime. */
  close(): Promise<void>;
}

/**
 * A runtime for a backfill against a failing exchange: few attempts of the client and of the queue,
 * short backoffs (at most 200 ms), its own queue and budget prefixes on the test Redis.
 */
export function createFewRetriesRuntime(options: FewRetriesOptions): FewRetriesRuntime {
  const budgetPrefix = randomPrefix('budget');
  const config = loadConfig({
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: TEST_REDIS_URL,
    NODE_ENV: 'test',
    ...options.env,
  });
  const runtime = createRuntime(config, {
    prefix: randomPrefix(options.label).replaceAll(':', '-'),
    clientOverrides: {
      rateBudget: { prefix: budgetPrefix, perSecond: scaledBudgets(options.rateFactor) },
      retry: { maxAttempts: options.clientAttempts, baseDelayMs: 20, maxDelayMs: 200 },
    },
    jobOptions: { ingest: { attempts: options.queueAttempts, backoff: { type: 'fixed', delay: 200 } } },
  });
  let workers: RunningWorkers | undefined;
  return {
    runtime,
    budgetPrefix,
    startWorkers() {
      workers = startWorkers(runtime, { concurrency: 4 });
      return workers;
    },
    async close() {
      await workers?.close();
      await deleteKeys(runtime.redis, runtime.prefix, budgetPrefix);
      await runtime.close();
    },
  };
}
