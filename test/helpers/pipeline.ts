import { afterAll, beforeAll } from 'vitest';

import { createRuntime, scaledBudgets } from '../../jobs/composition/create-runtime.ts';
import { type RunningWorkers, startWorkers, type WorkerOptions } from '../../jobs/composition/workers.ts';
import type { Runtime } from '../../jobs/runtime.ts';
import { loadConfig } from '../../src/config/config.ts';
import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../../src/simulator/index.ts';
import { type TestDatabase, useTestDatabase } from './test-database.ts';
import { deleteKeys, randomPrefix, TEST_REDIS_URL } from './test-redis.ts';

export interface Pipeline {
  sim: RunningSimulator;
  runtime: Runtime;
  accountId: string;
  startWorkers(options?: WorkerOptions): RunningWorkers;
  close(): Promise<void>;
}

export interface PipelineOptions {
  databaseUrl: string;
  simulator?: SimulatorOptions;
  /** Rate limits of simulator and client both scaled by this (default 50: fast tests, limits still on). */
  rateFactor?: number;
  accountName?: string;
  /** More configuration, as environment variables (e.g. a short NIGHTLY_CRON). */
  env?: Record<string, string>;
  /** The client's clock follows the simulator's (as production follows the exchange's), for tests that move it. */
  simulatorClock?: boolean;
}

/**
 * A simulator, a runtime on the test's own database and queue prefix, and the
 * simulator's demo account registered: everything an ingestion test needs.
 */
export async function startPipeline(options: PipelineOptions): Promise<Pipeline> {
  const factor = options.rateFactor ?? 50;
  const shifted = shiftedStart(options);
  const sim = await startSimulator({
    scale: 'tiny',
    ...(shifted === undefined ? {} : { anchor: shifted }),
    ...options.simulator,
    rateLimits: { enabled: true, factor, ...options.simulator?.rateLimits },
  });
  if (shifted !== undefined) sim.clock.set(shifted);
  const config = loadConfig({
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: TEST_REDIS_URL,
    NODE_ENV: 'test',
    // No random canary windows (src/streams/kit/page-fill.ts): tests count requests and pages exactly.
    PAGE_FILL_CANARY_EVERY: '0',
    ...options.env,
  });
  const runtime = createRuntime(config, {
    // A prefix QUEUE_PREFIX accepts too, so worker processes a test spawns share the runtime's queues.
    prefix: randomPrefix('pipeline').replaceAll(':', '-'),
    clientOverrides: {
      ...(options.simulatorClock ? { clock: () => sim.clock.now() } : {}),
      rateBudget: { prefix: randomPrefix('budget'), perSecond: scaledBudgets(factor) },
      retry: { baseDelayMs: 20, maxDelayMs: 200 },
    },
  });
  const account = await runtime.accounts.add({
    name: options.accountName ?? 'demo',
    baseUrl: sim.url,
    apiKey: sim.demo.apiKey,
    secretKey: sim.demo.secretKey,
    passphrase: sim.demo.passphrase,
    uid: sim.demo.uid,
    isBrokerParent: true,
    isUnifiedAccount: true,
  });
  const workers: RunningWorkers[] = [];
  return {
    sim,
    runtime,
    accountId: account.id,
    startWorkers(workerOptions) {
      const running = startWorkers(runtime, { concurrency: 4, ...workerOptions });
      workers.push(running);
      return running;
    },
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await deleteKeys(runtime.redis, runtime.prefix);
      await runtime.close();
      await sim.close();
    },
  };
}

/**
 * `TEST_CLOCK_SHIFT_DAYS=N` starts a running simulator clock (and the client's, which follows it) N
 * days from today, so that scripts/any-date.sh can run the grid-sensitive files on 30 consecutive
 * days in one sitting. Only pipelines whose client follows the simulator's clock and whose
 * simulator has no fixed `now` move: for the others the two clocks would disagree.
 */
function shiftedStart(options: PipelineOptions): number | undefined {
  const raw = process.env.TEST_CLOCK_SHIFT_DAYS;
  if (raw === undefined || raw === '' || !options.simulatorClock || options.simulator?.now !== undefined)
    return undefined;
  if (!/^-?\d+$/.test(raw)) throw new RangeError(`TEST_CLOCK_SHIFT_DAYS: must be a whole number of days (got ${raw})`);
  return Date.now() + Number(raw) * 86_400_000;
}

export interface FilePipeline {
  readonly db: TestDatabase;
  /** The running pipeline (available inside tests and hooks). */
  readonly pipeline: Pipeline;
}

/**
 * A database of the file's own and a pipeline on it, started before the
 * file's tests (with workers, unless told not to) and closed after them.
 */
export function usePipeline(
  label: string,
  options: Omit<PipelineOptions, 'databaseUrl'> & { workers?: boolean } = {},
): FilePipeline {
  const db = useTestDatabase(label);
  let pipeline: Pipeline | undefined;
  beforeAll(async () => {
    pipeline = await startPipeline({ ...options, databaseUrl: db.url });
    if (options.workers ?? true) pipeline.startWorkers();
  });
  afterAll(async () => {
    await pipeline?.close();
  });
  return {
    db,
    get pipeline() {
      if (!pipeline) throw new Error('the pipeline starts in beforeAll: use it inside tests');
      return pipeline;
    },
  };
}
