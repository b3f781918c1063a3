import type { Job } from 'bullmq';

import type { AccountSummary } from '../../src/accounts/account-service.ts';
import type { Logger } from '../../src/logging/logger.ts';
import { JOB, type JobData, QUEUE } from '../definitions.ts';
import { parseSyncAccountJob, type SyncAccountJob, syncAccountJobId } from '../payloads/sync-jobs.ts';
import type { Runtime } from '../runtime.ts';

/**
 * The application services a sync job calls, handed in by the composition root (jobs/composition/workers.ts):
 * the same ones `ledgerline sync` calls, so the job and the command cannot drift apart.
 */
export interface SyncServices {
  /** Plans the account's windows and adds them as children of the given sync-finish job. */
  planAndEnqueueSync(
    runtime: Runtime,
    account: AccountSummary,
    request: { finish: SyncAccountJob },
  ): Promise<{ enqueued: number; retried: number; notes: string[] }>;
  /** What follows an account's sync once its windows finished, in order. */
  afterSyncSteps: readonly ((runtime: Runtime, accountId: string) => Promise<void>)[];
}

/**
 * The nightly flow. The cron only enqueues `nightly`; it fans out one
 * `sync-account` per account; each plans its windows and adds them as
 * children of a `sync-finish` job, which BullMQ runs once every child is
 * done (a failed window does not hold it up: reconciliation reports it, and
 * the next sync reads it again).
 */
export function createSyncProcessor(runtime: Runtime, log: Logger, services: SyncServices) {
  const steps = services.afterSyncSteps;
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
    const sync = await services.planAndEnqueueSync(runtime, account, { finish: data });
    for (const note of sync.notes) log.warn({ ...entity, note }, 'account sync note');
    log.info({ ...entity, windows: sync.enqueued, retried: sync.retried }, 'account sync planned');
    return { windows: sync.enqueued };
  }

  async function syncFinish(data: SyncAccountJob, jobId: string | undefined): Promise<{ steps: number }> {
    for (const step of steps) await step(runtime, data.accountId);
    log.info({ jobId, accountId: data.accountId }, 'account sync completed');
    return { steps: steps.length };
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
