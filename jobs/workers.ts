import { Worker } from 'bullmq';
import { logger } from '../src/logging/logger.ts';
import { QUEUE } from './definitions.ts';
import type { IngestWindowJob } from './ingest/ingest-job.ts';
import { createIngestProcessor, type IngestJobResult } from './ingest/ingest-processor.ts';
import { markStalledWindowsFailed } from './ingest/stalled-window-failures.ts';
import { createExportProcessor } from './export/export-processor.ts';
import { createManagementProcessor } from './management/management-processor.ts';
import { createMarketDataProcessor } from './market-data/market-data-processor.ts';
import { createReconcileWorker } from './reconcile/reconcile-worker.ts';
import { createSyncProcessor } from './sync/sync-processor.ts';
import type { Runtime } from './runtime.ts';

export interface WorkerOptions {
  concurrency?: number;
  /** How long a job's lock lasts without renewal; a killed worker's job is taken over after it. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** How often a job may lose its worker and be taken over before it fails. */
  maxStalledCount?: number;
}

export interface RunningWorkers {
  workers: Worker[];
  /** Finishes or releases the jobs in hand (each stops after its current page), then closes. */
  close(): Promise<void>;
}

/** Starts this process's workers on every queue ledgerline processes. */
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
  const ingest = new Worker<IngestWindowJob, IngestJobResult>(
    QUEUE.ingest,
    createIngestProcessor({
      pool: runtime.pool,
      clients: runtime.clients,
      log: logger('ingest'),
      stopping: () => stopping,
    }),
    { ...common, connection: runtime.connection() },
  );
  markStalledWindowsFailed(ingest, runtime.pool, logger('ingest'));
  const management = new Worker(QUEUE.management, createManagementProcessor(runtime, logger('management')), {
    ...common,
    connection: runtime.connection(),
  });
  const sync = createSyncProcessor(runtime, logger('sync'));
  const syncWorker = new Worker(QUEUE.sync, sync.processor, { ...common, connection: runtime.connection() });
  const marketData = new Worker(QUEUE.marketData, createMarketDataProcessor(runtime, logger('market-data')), {
    ...common,
    // Polls are short and rate-limited per IP: one at a time is plenty.
    concurrency: 1,
    connection: runtime.connection(),
  });
  const exports = new Worker(
    QUEUE.export,
    createExportProcessor({
      databaseUrl: runtime.config.databaseUrl,
      exportDir: runtime.config.exportDir,
      prisma: runtime.prisma,
    }),
    // Each export holds one Postgres cursor for its whole run.
    { ...common, concurrency: 2, connection: runtime.connection() },
  );
  // Reconciliation reports (src/reconcile), enqueued after the nightly sync or on demand.
  const reconcile = createReconcileWorker(runtime, common);
  const workers = [ingest, management, syncWorker, marketData, exports, reconcile];
  for (const worker of workers) {
    worker.on('error', (error) => log.error({ err: error, queue: worker.name }, 'worker error'));
  }
  return {
    workers,
    async close() {
      stopping = true;
      await Promise.all(workers.map((w) => w.close()));
      await sync.close();
    },
  };
}
