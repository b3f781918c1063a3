import { Queue, type Job } from 'bullmq';
import { parseRecountMode, type RecountMode } from '../../src/reconcile/recount-mode.ts';
import { JOB_OPTIONS, QUEUE } from '../definitions.ts';
import type { Runtime } from '../runtime.ts';
import { RECONCILE_JOB_NAME, reconcileJobId, type ReconcileJob, type ReconcileJobResult } from './reconcile-job.ts';

export interface EnqueueReconciliationOptions {
  /** Default `recent`, the nightly choice. */
  recount?: RecountMode;
  /** The day the job id is taken from (default: now). */
  now?: Date;
  /** Run again today even though today's reconciliation has finished (a manual re-run). */
  replaceFinished?: boolean;
}

/**
 * Enqueues the reconciliation of one account under its (account, day) job
 * id, typically after the nightly sync. A job of that id that is waiting or
 * running is returned as it is; a finished one is kept (one run a day) unless
 * `replaceFinished`.
 */
export async function enqueueReconciliation(
  runtime: Pick<Runtime, 'prefix' | 'redis'>,
  accountId: string,
  options: EnqueueReconciliationOptions = {},
): Promise<Job<ReconcileJob, ReconcileJobResult>> {
  const data: ReconcileJob = { accountId, recount: parseRecountMode(options.recount ?? 'recent', 'recount') };
  const jobId = reconcileJobId(accountId, options.now ?? new Date());
  const queue = new Queue<ReconcileJob, ReconcileJobResult>(QUEUE.reconcile, {
    prefix: runtime.prefix,
    connection: runtime.redis,
  });
  try {
    const existing = await queue.getJob(jobId);
    if (existing) {
      const state = await existing.getState();
      const finished = state === 'completed' || state === 'failed';
      if (!finished || !options.replaceFinished) return existing;
      await existing.remove();
    }
    return await queue.add(RECONCILE_JOB_NAME, data, { ...JOB_OPTIONS[QUEUE.reconcile], jobId });
  } finally {
    await queue.close();
  }
}
