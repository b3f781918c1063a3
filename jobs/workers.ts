import { Worker } from 'bullmq';
import { logger } from '../src/logging/logger.ts';
import { QUEUE } from './definitions.ts';
import type { IngestWindowJob } from './ingest/ingest-job.ts';
import { createIngestProcessor, type IngestJobResult } from './ingest/ingest-processor.ts';
import { createManagementProcessor } from './management/management-processor.ts';
import { createReconcileWorker } from './reconcile/reconcile-worker.ts';
import type { Runtime } from './runtime.ts';

export interface WorkerOptions {
  concurrency?: number;
  /** How long a job's lock lasts without renewal; a killed worker's job is taken over after it. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
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
    maxStalledCount: 5,
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
  const management = new Worker(QUEUE.management, createManagementProcessor(runtime, logger('management')), {
    ...common,
    connection: runtime.connection(),
  });
  const workers = [ingest, management];
  // Reconciliation reports (src/reconcile), enqueued after the nightly sync or on demand.
  workers.push(createReconcileWorker(runtime, common));
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
