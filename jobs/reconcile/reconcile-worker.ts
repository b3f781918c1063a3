import { Worker, type WorkerOptions } from 'bullmq';
import { logger } from '../../src/logging/logger.ts';
import { QUEUE } from '../definitions.ts';
import type { Runtime } from '../runtime.ts';
import type { ReconcileJob, ReconcileJobResult } from './reconcile-job.ts';
import { createReconcileProcessor } from './reconcile-processor.ts';

/**
 * The reconcile queue's worker. One reconciliation at a time per process: each
 * runs whole-table queries and re-pages windows under the accounts' rate budgets.
 */
export function createReconcileWorker(
  runtime: Runtime,
  options: Omit<WorkerOptions, 'connection' | 'concurrency'>,
): Worker {
  return new Worker<ReconcileJob, ReconcileJobResult>(
    QUEUE.reconcile,
    createReconcileProcessor(runtime, logger('reconcile')),
    { ...options, concurrency: 1, connection: runtime.connection() },
  );
}
