import type pg from 'pg';

import type { SyncRun } from '../../src/app/job-port.ts';
import type { SyncWindowRow } from '../../src/ingest/coverage/window-store.ts';
import { JOB, JOB_OPTIONS, QUEUE, type Queues } from '../definitions.ts';
import { ingestJobOptions, windowsNeedingJobs } from '../ingest/enqueue-windows.ts';
import { windowJobData } from '../payloads/ingest-job.ts';
import { syncFinishJobId } from '../payloads/sync-jobs.ts';

/**
 * The nightly path: the windows that need a job, added as children of the run's sync-finish job,
 * which BullMQ runs once every child has finished (reconciliation follows); how many were added.
 */
export async function enqueueSyncRun(
  queues: Queues,
  pool: pg.Pool,
  finish: SyncRun,
  windows: readonly SyncWindowRow[],
): Promise<number> {
  const needing = await windowsNeedingJobs(queues, pool, windows);
  const ingestOptions = ingestJobOptions(needing);
  // A flow's jobs get no queue defaults: each carries its queue's options.
  await queues.flows().add({
    name: JOB.syncFinish,
    queueName: QUEUE.sync,
    data: finish,
    opts: { ...JOB_OPTIONS[QUEUE.sync], jobId: syncFinishJobId(finish) },
    children: needing.map((window, i) => ({
      name: JOB.ingestWindow,
      queueName: QUEUE.ingest,
      data: windowJobData(window),
      opts: { ...JOB_OPTIONS[QUEUE.ingest], ...ingestOptions[i]!, ignoreDependencyOnFailure: true },
    })),
  });
  return needing.length;
}
