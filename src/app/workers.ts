import { Worker, type WorkerOptions as BullWorkerOptions } from 'bullmq';

import { QUEUE, type QueueName } from '../../jobs/definitions.ts';
import { createExportProcessor } from '../../jobs/export/export-processor.ts';
import { createIngestProcessor } from '../../jobs/ingest/ingest-processor.ts';
import { markStalledWindowsFailed } from '../../jobs/ingest/stalled-window-failures.ts';
import { createManagementProcessor } from '../../jobs/management/management-processor.ts';
import { createMarketDataProcessor } from '../../jobs/market-data/market-data-processor.ts';
import { createReconcileProcessor } from '../../jobs/reconcile/reconcile-processor.ts';
import { recordRuns, type RunListener } from '../../jobs/runs/record-runs.ts';
import type { Runtime } from '../../jobs/runtime.ts';
import { createSyncProcessor, type SyncServices } from '../../jobs/sync/sync-processor.ts';
import { logger } from '../logging/logger.ts';
import { AFTER_SYNC_STEPS } from './services/after-sync.ts';
import { planAndEnqueueSync } from './services/plan-and-enqueue-sync.ts';

export interface WorkerOptions {
  concurrency?: number;
  /** How long a job's lock lasts without renewal; a killed worker's job is taken over after it. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** How often a job may lose its worker and be taken over before it fails. */
  maxStalledCount?: number;
  /** Told of every sync, reconciliation and export written to the run history (alerts, metrics). */
  runListeners?: RunListener[];
}

export interface RunningWorkers {
  workers: Worker[];
  /** Finishes or releases the jobs in hand (each stops after its current page), then closes. */
  close(): Promise<void>;
}

/**
 * Per queue, how many jobs one process runs at once, where it differs from
 * WORKER_CONCURRENCY: market-data polls are short and rate-limited per IP;
 * each export holds one Postgres cursor for its whole run; a reconciliation
 * runs whole-table queries and re-pages windows under the accounts' budgets.
 */
const CONCURRENCY: Partial<Record<QueueName, number>> = {
  [QUEUE.marketData]: 1,
  [QUEUE.export]: 2,
  [QUEUE.reconcile]: 1,
};

/** The services the sync processor calls (the same `ledgerline sync` and `backfill` call). */
export const SYNC_SERVICES: SyncServices = { planAndEnqueueSync, afterSyncSteps: AFTER_SYNC_STEPS };

/** Starts this process's workers, one per queue, each on its own connection. */
export function startWorkers(runtime: Runtime, options: WorkerOptions = {}): RunningWorkers {
  let stopping = false;
  const log = logger('worker');
  const common = {
    prefix: runtime.prefix,
    concurrency: options.concurrency ?? runtime.config.workerConcurrency,
    lockDuration: options.lockDurationMs ?? runtime.config.workerLockDurationMs,
    stalledInterval: options.stalledIntervalMs ?? runtime.config.workerLockDurationMs,
    // Reading a window again is harmless (upserts, cursor checks), so a job
    // whose worker died may be taken over several times before it counts as failed.
    maxStalledCount: options.maxStalledCount ?? runtime.config.workerMaxStalledCount,
  };
  const optionsFor = (queue: QueueName): BullWorkerOptions => ({
    ...common,
    concurrency: CONCURRENCY[queue] ?? common.concurrency,
    connection: runtime.connection(),
  });
  const ingest = new Worker(
    QUEUE.ingest,
    createIngestProcessor({
      pool: runtime.pool,
      clients: runtime.clients,
      log: logger('ingest'),
      stopping: () => stopping,
    }),
    optionsFor(QUEUE.ingest),
  );
  markStalledWindowsFailed(ingest, runtime.pool, logger('ingest'));
  const workers: Worker[] = [
    ingest,
    new Worker(
      QUEUE.management,
      createManagementProcessor(runtime, logger('management')),
      optionsFor(QUEUE.management),
    ),
    new Worker(QUEUE.sync, createSyncProcessor(runtime, logger('sync'), SYNC_SERVICES), optionsFor(QUEUE.sync)),
    new Worker(
      QUEUE.marketData,
      createMarketDataProcessor(runtime, logger('market-data')),
      optionsFor(QUEUE.marketData),
    ),
    new Worker(
      QUEUE.export,
      createExportProcessor({
        databaseUrl: runtime.config.databaseUrl,
        exportDir: runtime.config.exportDir,
        prisma: runtime.prisma,
        valuation: runtime.config.valuation,
      }),
      optionsFor(QUEUE.export),
    ),
    new Worker(QUEUE.reconcile, createReconcileProcessor(runtime, logger('reconcile')), optionsFor(QUEUE.reconcile)),
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
    },
  };
}
