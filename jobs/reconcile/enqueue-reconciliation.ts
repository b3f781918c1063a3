import type { Job } from 'bullmq';

import { parseRecountMode, type RecountMode } from '../../src/reconcile/recount-mode.ts';
import { JOB, QUEUE, type Queues } from '../definitions.ts';
import { ensureJob } from '../ensure-job.ts';
import { type ReconcileJob, reconcileJobId, type ReconcileJobResult } from '../payloads/reconcile-job.ts';

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
  runtime: { queues: Queues },
  accountId: string,
  options: EnqueueReconciliationOptions = {},
): Promise<Job<ReconcileJob, ReconcileJobResult>> {
  const data: ReconcileJob = { accountId, recount: parseRecountMode(options.recount ?? 'recent', 'recount') };
  const { job } = await ensureJob(
    runtime.queues.get(QUEUE.reconcile),
    JOB.reconcileAccount,
    reconcileJobId(accountId, options.now ?? new Date()),
    data,
    { whenFinished: options.replaceFinished ? 'replace' : 'keep' },
  );
  return job;
}
