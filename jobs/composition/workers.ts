import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

import { type Job, type Processor, Worker, type WorkerOptions as BullWorkerOptions } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';

import { AFTER_SYNC_STEPS } from '../../src/app/services/after-sync.ts';
import { planAndEnqueueSync } from '../../src/app/services/plan-and-enqueue-sync.ts';
import type { Config } from '../../src/config/config.ts';
import { databaseLoss } from '../../src/db/connection-loss.ts';
import { DatabaseConnectionLostError } from '../../src/errors/index.ts';
import { FilingThreads } from '../../src/export/filing/filing-threads.ts';
import { StorageAlarm } from '../../src/ingest/coverage/storage-alarm.ts';
import { logger } from '../../src/logging/logger.ts';
import { QUEUE, type QueueName } from '../definitions.ts';
import { createExportProcessor, type ExportProcessorDeps } from '../export/export-processor.ts';
import { createFilingProcessor } from '../filing/filing-processor.ts';
import { createIngestProcessor } from '../ingest/ingest-processor.ts';
import { markStalledWindowsFailed } from '../ingest/stalled-window-failures.ts';
import { createManagementProcessor } from '../management/management-processor.ts';
import { createMarketDataProcessor } from '../market-data/market-data-processor.ts';
import type { ExportJobData, ExportJobResult } from '../payloads/export-job.ts';
import type { FilingJob, FilingJobResult } from '../payloads/filing-job.ts';
import { DetachedRuns } from '../reconcile/detached-runs.ts';
import { createReconcileProcessor } from '../reconcile/reconcile-processor.ts';
import { PgRunStore } from '../reconcile/run-fence.ts';
import { recordRuns, type RunListener } from '../runs/record-runs.ts';
import type { Runtime } from '../runtime.ts';
import { createSyncProcessor, type SyncServices } from '../sync/sync-processor.ts';

export interface WorkerOptions {
  concurrency?: number;
  /** How long a job's lock lasts without renewal; a killed worker's job is taken over after it. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** How often a job may lose its worker and be taken over before it fails. */
  maxStalledCount?: number;
  /** Told of every sync, reconciliation and export written to the run history (alerts, metrics). */
  runListeners?: RunListener[];
  /**
   * Start the filing threads with the worker rather than on the first computation, so that the
   * first tax years view after a start waits for its walk only (a deployed worker and web process
   * do; tests start many short-lived workers and leave it off).
   */
  warmFilingThreads?: boolean;
}

export interface RunningWorkers {
  workers: Worker[];
  /** Finishes or releases the jobs in hand (each stops after its current page), then closes. */
  close(): Promise<void>;
}

/**
 * Per queue, how many jobs one process runs at once, where it differs from
 * WORKER_CONCURRENCY: market-data polls are short and rate-limited per IP;
 * each export holds one Postgres cursor for its whole run. A reconciliation
 * takes the common concurrency: it waits for its budgets out of its slot.
 */
const CONCURRENCY: Partial<Record<QueueName, number>> = {
  [QUEUE.marketData]: 1,
  [QUEUE.export]: 2,
  // Each computation walks a history in a thread of its own: two use the two cores.
  [QUEUE.filing]: 2,
};

/** The services the sync processor calls (the same `ledgerline sync` and `backfill` call). */
export const SYNC_SERVICES: SyncServices = { planAndEnqueueSync, afterSyncSteps: AFTER_SYNC_STEPS };

/** What building a worker needs of the process: the prefix, a connection per worker, the config's worker settings. */
export interface WorkerHost {
  prefix: string;
  config: Pick<Config, 'databaseUrl' | 'workerConcurrency' | 'workerLockDurationMs' | 'workerMaxStalledCount'>;
  /** A new connection for a BullMQ Worker (blocking reads need their own). */
  connection(): Redis | Cluster;
}

/**
 * The one place a Worker is constructed: on the queue map's name, with the prefix, the queue's
 * concurrency and the lock and stall settings of the config (or the options), on its own connection.
 */
function buildWorker<Data, Result>(
  host: WorkerHost,
  queue: QueueName,
  processor: Processor<Data, Result>,
  options: WorkerOptions,
): Worker<Data, Result> {
  const settings: BullWorkerOptions = {
    prefix: host.prefix,
    concurrency: CONCURRENCY[queue] ?? options.concurrency ?? host.config.workerConcurrency,
    lockDuration: options.lockDurationMs ?? host.config.workerLockDurationMs,
    stalledInterval: options.stalledIntervalMs ?? host.config.workerLockDurationMs,
    // Reading a window again is harmless (upserts, cursor checks), so a job
    // whose worker died may be taken over several times before it counts as failed.
    maxStalledCount: options.maxStalledCount ?? host.config.workerMaxStalledCount,
    connection: host.connection(),
  };
  return new Worker<Data, Result>(queue, namingDatabaseLoss(processor, host.config.databaseUrl), settings);
}

/**
 * A job whose database connection was lost under it fails as a DatabaseConnectionLostError,
 * whatever step met the loss: retryable (the queue's backoff), and named as what it is in the
 * job's failure and the logs. Every other outcome passes unchanged (DelayedError included).
 */
function namingDatabaseLoss<Data, Result>(processor: Processor<Data, Result>, databaseUrl: string) {
  return async (job: Job<Data, Result>, token?: string): Promise<Result> => {
    try {
      return await processor(job, token);
    } catch (error) {
      const loss = databaseLoss(error, databaseUrl);
      throw loss?.kind === 'lost' ? new DatabaseConnectionLostError(loss.reason, error) : error;
    }
  };
}

/**
 * The export queue's worker on its own: the web page runs one beside it, so requested reports
 * get written before the full worker is deployed. Built like every other worker.
 */
export function createExportWorker(
  host: WorkerHost,
  deps: ExportProcessorDeps,
  options: WorkerOptions = {},
): Worker<ExportJobData, ExportJobResult> {
  return buildWorker(host, QUEUE.export, createExportProcessor(deps), options);
}

/** The export processor's dependencies, from the runtime. */
export function exportDeps(runtime: Runtime): ExportProcessorDeps {
  return {
    databaseUrl: runtime.config.databaseUrl,
    exportDir: runtime.config.exportDir,
    prisma: runtime.prisma,
    valuation: runtime.config.valuation,
    chromiumPath: runtime.config.chromiumPath,
  };
}

/** The filing queue's worker and the threads its walks run in (closed together). */
export interface FilingWorker {
  worker: Worker<FilingJob, FilingJobResult>;
  close(): Promise<void>;
}

/**
 * The filing queue's worker: the web page runs one beside it (as the export worker), so its
 * figures get computed before the full worker is deployed. The walks run in threads, never in the
 * event loop of the process (the web process answers its requests meanwhile).
 */
export function createFilingWorker(
  host: WorkerHost & { config: Pick<Config, 'databaseUrl' | 'valuation'> },
  options: WorkerOptions = {},
): FilingWorker {
  const threads = new FilingThreads(CONCURRENCY[QUEUE.filing]);
  if (options.warmFilingThreads === true) threads.warm();
  const processor = createFilingProcessor({
    databaseUrl: host.config.databaseUrl,
    valuation: host.config.valuation,
    threads,
    log: logger('filing'),
  });
  const worker = buildWorker(host, QUEUE.filing, processor, options);
  return {
    worker,
    async close() {
      await worker.close();
      await threads.close();
    },
  };
}

/** Starts this process's workers, one per queue, each on its own connection. */
export function startWorkers(runtime: Runtime, options: WorkerOptions = {}): RunningWorkers {
  let stopping = false;
  const log = logger('worker');
  const ingest = buildWorker(
    runtime,
    QUEUE.ingest,
    createIngestProcessor({
      pool: runtime.pool,
      clients: runtime.clients,
      log: logger('ingest'),
      stopping: () => stopping,
      storage: new StorageAlarm(runtime.redis, runtime.prefix),
      pageFillEvidenceMs: runtime.config.sync.pageFillEvidenceMs,
      pageFillCanaryEvery: runtime.config.sync.pageFillCanaryEvery,
      failureBudgetMs: runtime.config.exchangeFailureBudgetMs,
    }),
    options,
  );
  markStalledWindowsFailed(ingest, runtime.pool, logger('ingest'));
  const reconcileRuns = new PgRunStore(runtime.pool);
  const filing = createFilingWorker(runtime, options);
  const workers: Worker[] = [
    filing.worker,
    ingest,
    buildWorker(runtime, QUEUE.management, createManagementProcessor(runtime, logger('management')), options),
    buildWorker(runtime, QUEUE.sync, createSyncProcessor(runtime, logger('sync'), SYNC_SERVICES), options),
    buildWorker(runtime, QUEUE.marketData, createMarketDataProcessor(runtime, logger('market-data')), options),
    createExportWorker(runtime, exportDeps(runtime), options),
    buildWorker(
      runtime,
      QUEUE.reconcile,
      createReconcileProcessor(runtime, logger('reconcile'), {
        fullEveryDays: runtime.config.reconcileFullEveryDays,
        runs: new DetachedRuns(
          runtime.redis,
          runtime.prefix,
          `${hostname()}:${process.pid}:${randomUUID()}`,
          reconcileRuns,
          runtime.config.reconcileClaimTtlMs,
        ),
        store: reconcileRuns,
        maxInFlight: runtime.config.reconcileMaxInFlight,
        runListeners: options.runListeners,
      }),
      options,
    ),
  ];
  recordRuns(runtime, workers, logger('runs'), options.runListeners);
  for (const worker of workers) {
    worker.on('error', (error) => log.error({ err: error, queue: worker.name }, 'worker error'));
  }
  return {
    workers,
    async close() {
      stopping = true;
      await Promise.all(workers.map((w) => w.close()));
      await filing.close();
    },
  };
}
