import type pg from 'pg';

import { requeueWindows, type SyncWindowRow } from '../../src/ingest/coverage/window-store.ts';
import { JOB, QUEUE, type Queues } from '../definitions.ts';
import { jobHoldingId } from '../ensure-job.ts';
import { ingestJobId, windowJobData } from './ingest-job.ts';

/**
 * The windows that need a new job: not done, and with no job of theirs
 * waiting or running (same job id). An earlier job that has finished (failed,
 * or completed before a --refetch reset the window) is removed, so its id can
 * be used again. Each window appears once, in the order given. A failed one
 * is set back to pending: the caller adds its job next.
 */
export async function windowsNeedingJobs(
  queues: Queues,
  pool: pg.Pool,
  windows: readonly SyncWindowRow[],
): Promise<SyncWindowRow[]> {
  const queue = queues.get(QUEUE.ingest);
  const seen = new Set<string>();
  const needing: SyncWindowRow[] = [];
  for (const window of windows) {
    if (window.status === 'done' || seen.has(window.id)) continue;
    seen.add(window.id);
    if (await jobHoldingId(queue, ingestJobId(windowJobData(window)), 'replace')) continue;
    needing.push(window);
  }
  await requeueWindows(
    pool,
    needing.map((w) => w.id),
  );
  return needing.map((w) => (w.status === 'failed' ? { ...w, status: 'pending' as const } : w));
}

/** Enqueues the windows that need a job (see windowsNeedingJobs); returns how many were added. */
export async function enqueueWindows(
  queues: Queues,
  pool: pg.Pool,
  windows: readonly SyncWindowRow[],
): Promise<number> {
  const jobs = (await windowsNeedingJobs(queues, pool, windows)).map((window) => {
    const data = windowJobData(window);
    return { name: JOB.ingestWindow, data, opts: { jobId: ingestJobId(data) } };
  });
  if (jobs.length > 0) await queues.get(QUEUE.ingest).addBulk(jobs);
  return jobs.length;
}
