import type { Job } from 'bullmq';

import type { Logger } from '../../src/logging/logger.ts';
import { JOB, type JobData, QUEUE } from '../definitions.ts';
import type { Runtime } from '../runtime.ts';
import { AFTER_SYNC_STEPS } from './after-sync.ts';
import { planAndEnqueueSync } from './plan-and-enqueue-sync.ts';
import { parseSyncAccountJob, type SyncAccountJob, syncAccountJobId } from './sync-jobs.ts';

/**
 * The nightly flow. The cron only enqueues `nightly`; it fans out one
 * `sync-account` per account; each plans its windows and adds them as
 * children of a `sync-finish` job, which BullMQ runs once every child is
 * done (a failed window does not hold it up: reconciliation reports it, and
 * the next sync reads it again).
 */
export function createSyncProcessor(runtime: Runtime, log: Logger) {
  async function nightly(job: Job): Promise<{ accounts: number }> {
    const runId = String(job.opts.prevMillis ?? job.timestamp);
    // A disabled account is left out of the run; its stored history stays in every report.
    const accounts = (await runtime.accounts.list()).filter((account) => account.disabledAt === null);
    await runtime.queues.get(QUEUE.sync).addBulk(
      accounts.map((account) => {
        const data = { accountId: account.id, runId };
        return { name: JOB.syncAccount, data, opts: { jobId: syncAccountJobId(data) } };
      }),
    );
    log.info({ runId, accounts: accounts.length }, 'nightly sync enqueued');
    return { accounts: accounts.length };
  }

  async function syncAccount(data: SyncAccountJob, jobId: string | undefined): Promise<{ windows: number }> {
    const account = await runtime.accounts.getById(data.accountId);
    const entity = { jobId, account: account.name, accountId: account.id };
    log.info(entity, 'account sync started');
    const sync = await planAndEnqueueSync(runtime, account, { finish: data });
    for (const note of sync.notes) log.warn({ ...entity, note }, 'account sync note');
    log.info({ ...entity, windows: sync.enqueued, retried: sync.retried }, 'account sync planned');
    return { windows: sync.enqueued };
  }

  async function syncFinish(data: SyncAccountJob, jobId: string | undefined): Promise<{ steps: number }> {
    for (const step of AFTER_SYNC_STEPS) await step(runtime, data.accountId);
    log.info({ jobId, accountId: data.accountId }, 'account sync completed');
    return { steps: AFTER_SYNC_STEPS.length };
  }

  return async (job: Job<JobData<'sync'>>) => {
    switch (job.name) {
      case JOB.nightly:
        return nightly(job);
      case JOB.syncAccount:
        return syncAccount(parseSyncAccountJob(job.data), job.id);
      case JOB.syncFinish:
        return syncFinish(parseSyncAccountJob(job.data), job.id);
      default:
        log.warn({ jobId: job.id, name: job.name }, 'sync job discarded: unknown job name');
        return { discarded: job.name };
    }
  };
}
