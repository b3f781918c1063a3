import type { Queue } from 'bullmq';
import type pg from 'pg';
import { requeueWindows, type SyncWindowRow } from '../../src/ingest/coverage/window-store.ts';
import { JOB_OPTIONS, QUEUE } from '../definitions.ts';
import { INGEST_JOB_NAME, ingestJobId, windowJobData, type IngestWindowJob } from './ingest-job.ts';

const FINISHED = new Set(['completed', 'failed', 'unknown']);

/**
 * The windows that need a new job: not done, and with no job of theirs
 * waiting or running (same job id). An earlier job that has finished (failed,
 * or completed before a --refetch reset the window) is removed, so its id can
 * be used again. Each window appears once, in the order given. A failed one
 * is set back to pending: the caller adds its job next.
 */
export async function windowsNeedingJobs(
  queue: Queue<IngestWindowJob>,
  pool: pg.Pool,
  windows: readonly SyncWindowRow[],
): Promise<SyncWindowRow[]> {
  const seen = new Set<string>();
  const needing: SyncWindowRow[] = [];
  for (const window of windows) {
    if (window.status === 'done' || seen.has(window.id)) continue;
    seen.add(window.id);
    const existing = await queue.getJob(ingestJobId(windowJobData(window)));
    if (existing) {
      if (!FINISHED.has(await existing.getState())) continue;
      await existing.remove();
    }
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
  queue: Queue<IngestWindowJob>,
  pool: pg.Pool,
  windows: readonly SyncWindowRow[],
): Promise<number> {
  const jobs = (await windowsNeedingJobs(queue, pool, windows)).map((window) => {
    const data = windowJobData(window);
    return { name: INGEST_JOB_NAME, data, opts: { ...JOB_OPTIONS[QUEUE.ingest], jobId: ingestJobId(data) } };
  });
  if (jobs.length > 0) await queue.addBulk(jobs);
  return jobs.length;
}
