import type pg from 'pg';

import { requeueWindows, type SyncWindowRow } from '../../src/ingest/coverage/window-store.ts';
import { JOB, QUEUE, type Queues } from '../definitions.ts';
import { jobHoldingId } from '../ensure-job.ts';
import { ingestJobId, windowJobData } from '../payloads/ingest-job.ts';

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
  const candidates: SyncWindowRow[] = [];
  for (const window of windows) {
    if (window.status === 'done' || seen.has(window.id)) continue;
    seen.add(window.id);
    candidates.push(window);
  }
  // Asked all at once (one round trip's wait, not one per window: a year of windows of three
  // streams is some fifty); each id is looked up once, so no two lookups touch one job.
  const holders = await Promise.all(
    candidates.map((window) => jobHoldingId(queue, ingestJobId(windowJobData(window)), 'replace')),
  );
  const needing = candidates.filter((_, i) => holders[i] === undefined);
  await requeueWindows(
    pool,
    needing.map((w) => w.id),
  );
  return needing.map((w) => (w.status === 'failed' ? { ...w, status: 'pending' as const } : w));
}

/**
 * Each window's job id and priority: its rank among the windows given of its (account, stream,
 * scope), 1 for the first. Workers take the lowest number first, so every account's and every
 * stream's first window comes before anybody's second, whichever backfill or sync enqueued them
 * and in which order: fifty accounts enqueued one after the other are served from the start, and
 * an account's transfers do not wait behind its thirteen spot windows.
 */
export function ingestJobOptions(windows: readonly SyncWindowRow[]): { jobId: string; priority: number }[] {
  const ranks = new Map<string, number>();
  return windows.map((window) => {
    const group = `${window.accountId}.${window.stream}.${window.scope}`;
    const rank = (ranks.get(group) ?? 0) + 1;
    ranks.set(group, rank);
    return { jobId: ingestJobId(windowJobData(window)), priority: Math.min(rank, MAX_PRIORITY) };
  });
}

/** BullMQ's largest priority (2^21). */
const MAX_PRIORITY = 2_097_152;

/** Enqueues the windows that need a job (see windowsNeedingJobs); returns how many were added. */
export async function enqueueWindows(
  queues: Queues,
  pool: pg.Pool,
  windows: readonly SyncWindowRow[],
): Promise<number> {
  const needing = await windowsNeedingJobs(queues, pool, windows);
  const options = ingestJobOptions(needing);
  const jobs = needing.map((window, i) => ({ name: JOB.ingestWindow, data: windowJobData(window), opts: options[i]! }));
  if (jobs.length > 0) await queues.get(QUEUE.ingest).addBulk(jobs);
  return jobs.length;
}
