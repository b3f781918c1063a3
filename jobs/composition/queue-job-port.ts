import type pg from 'pg';

import type { JobPort } from '../../src/app/job-port.ts';
import type { Config } from '../../src/config/config.ts';
import { JOB, QUEUE, type Queues } from '../definitions.ts';
import { ensureJob } from '../ensure-job.ts';
import { enqueueWindows } from '../ingest/enqueue-windows.ts';
import { managementJobId } from '../payloads/management-job.ts';
import { enqueueReconciliation } from '../reconcile/enqueue-reconciliation.ts';
import { enqueueSyncRun } from '../sync/enqueue-sync-run.ts';
import { enqueueExport } from './export-queue.ts';
import { requestFilingFiguresNow } from './filing-queue.ts';
import { missingSchedules, repairSkewedSchedules, upsertSchedules } from './schedules.ts';

/**
 * The application's job port (src/app/job-port.ts) on the process's BullMQ queues: each method
 * is the enqueue helper of its queue, with the job names, ids and options of jobs/definitions.ts.
 */
export function queueJobPort(runtime: { config: Config; pool: pg.Pool; queues: Queues }): JobPort {
  const { pool, queues } = runtime;
  return {
    enqueueWindows: (windows) => enqueueWindows(queues, pool, windows),
    enqueueSyncRun: (run, windows) => enqueueSyncRun(queues, pool, run, windows),
    enqueueReconciliation: (accountId, options) => enqueueReconciliation(runtime, accountId, options),
    async enqueueAction(actionId) {
      const { added } = await ensureJob(
        queues.get(QUEUE.management),
        JOB.managementAction,
        managementJobId(actionId),
        { actionId },
        { whenFinished: 'replace' },
      );
      return added;
    },
    enqueueExport: (request, options) => enqueueExport(queues.get(QUEUE.export), request, options),
    enqueueFilingFigures: (accountId) => requestFilingFiguresNow(runtime, accountId),
    workerCount: (work) => queues.get(work === 'ingest' ? QUEUE.ingest : QUEUE.management).getWorkersCount(),
    missingSchedules: () => missingSchedules(runtime),
    upsertSchedules: () => upsertSchedules(runtime),
    repairSkewedSchedules: (now) => repairSkewedSchedules(runtime, now),
  };
}
