import type { Queue } from 'bullmq';
import type { SyncWindowRow } from '../../src/ingest/coverage/window-store.ts';
import { JOB_OPTIONS, QUEUE } from '../definitions.ts';
import { INGEST_JOB_NAME, ingestJobId, windowJobData, type IngestWindowJob } from './ingest-job.ts';

/**
 * Enqueues the windows that are not done. A window whose job is still
 * waiting or running is left alone (same job id); one whose earlier job has
 * finished (failed, or completed before a --refetch reset it) gets a new run.
 * Returns how many jobs were added.
 */
export async function enqueueWindows(
  queue: Queue<IngestWindowJob>,
  windows: readonly SyncWindowRow[],
): Promise<number> {
  const jobs = [];
  for (const window of windows) {
    if (window.status === 'done') continue;
    const data = windowJobData(window);
    const jobId = ingestJobId(data);
    const existing = await queue.getJob(jobId);
    if (existing) {
      const state = await existing.getState();
      if (state !== 'completed' && state !== 'failed' && state !== 'unknown') continue;
      await existing.remove();
    }
    jobs.push({ name: INGEST_JOB_NAME, data, opts: { ...JOB_OPTIONS[QUEUE.ingest], jobId } });
  }
  if (jobs.length > 0) await queue.addBulk(jobs);
  return jobs.length;
}
