import { FlowProducer, Queue, type Job } from 'bullmq';
import { ensureWindows } from '../../src/ingest/coverage/window-store.ts';
import { STREAMS } from '../../src/ingest/streams.ts';
import { planRetries } from '../../src/ingest/retry-plan.ts';
import { planIncrementalSync } from '../../src/ingest/sync-plan.ts';
import type { Logger } from '../../src/logging/logger.ts';
import { JOB_OPTIONS, QUEUE } from '../definitions.ts';
import { windowsNeedingJobs } from '../ingest/enqueue-windows.ts';
import { INGEST_JOB_NAME, ingestJobId, windowJobData, type IngestWindowJob } from '../ingest/ingest-job.ts';
import type { Runtime } from '../runtime.ts';
import { AFTER_SYNC_STEPS } from './after-sync.ts';
import { SYNC_JOB, syncAccountJobId, syncFinishJobId, type SyncAccountJob } from './sync-jobs.ts';

/**
 * The nightly flow. The cron only enqueues `nightly`; it fans out one
 * `sync-account` per account; each plans its windows and adds them as
 * children of a `sync-finish` job, which BullMQ runs once every child is
 * done (a failed window does not hold it up: reconciliation reports it, and
 * the next sync reads it again).
 */
export function createSyncProcessor(runtime: Runtime, log: Logger) {
  const flows = new FlowProducer({ prefix: runtime.prefix, connection: runtime.connection() });
  const ingestQueue = new Queue<IngestWindowJob>(QUEUE.ingest, { prefix: runtime.prefix, connection: runtime.redis });

  async function nightly(job: Job): Promise<{ accounts: number }> {
    const runId = String(job.opts.prevMillis ?? job.timestamp);
    const accounts = await runtime.accounts.list();
    const syncQueue = new Queue<SyncAccountJob>(QUEUE.sync, { prefix: runtime.prefix, connection: runtime.redis });
    try {
      await syncQueue.addBulk(
        accounts.map((account) => {
          const data = { accountId: account.id, runId };
          return {
            name: SYNC_JOB.syncAccount,
            data,
            opts: { ...JOB_OPTIONS[QUEUE.sync], jobId: syncAccountJobId(data) },
          };
        }),
      );
    } finally {
      await syncQueue.close();
    }
    log.info({ runId, accounts: accounts.length }, 'nightly sync enqueued');
    return { accounts: accounts.length };
  }

  async function syncAccount(job: Job<SyncAccountJob>): Promise<{ windows: number }> {
    const account = await runtime.accounts.getById(job.data.accountId);
    const entity = { jobId: job.id, account: account.name, accountId: account.id };
    log.info(entity, 'account sync started');
    const now = Date.now();
    const plan = await planIncrementalSync(runtime.pool, account, STREAMS, now, runtime.config.sync);
    const retries = await planRetries(runtime.pool, account.id, STREAMS, now);
    for (const note of [...retries.notes, ...plan.notes]) log.warn({ ...entity, note }, 'account sync note');
    const windows = await windowsNeedingJobs(ingestQueue, runtime.pool, [
      ...retries.windows,
      ...(await ensureWindows(runtime.pool, plan.windows)),
    ]);
    await flows.add({
      name: SYNC_JOB.syncFinish,
      queueName: QUEUE.sync,
      data: job.data,
      opts: { ...JOB_OPTIONS[QUEUE.sync], jobId: syncFinishJobId(job.data) },
      children: windows.map((window) => {
        const data = windowJobData(window);
        return {
          name: INGEST_JOB_NAME,
          queueName: QUEUE.ingest,
          data,
          opts: { ...JOB_OPTIONS[QUEUE.ingest], jobId: ingestJobId(data), ignoreDependencyOnFailure: true },
        };
      }),
    });
    log.info({ ...entity, windows: windows.length, retried: retries.windows.length }, 'account sync planned');
    return { windows: windows.length };
  }

  async function syncFinish(job: Job<SyncAccountJob>): Promise<{ steps: number }> {
    for (const step of AFTER_SYNC_STEPS) await step(runtime, job.data.accountId);
    log.info({ jobId: job.id, accountId: job.data.accountId }, 'account sync completed');
    return { steps: AFTER_SYNC_STEPS.length };
  }

  const processor = async (job: Job) => {
    switch (job.name) {
      case SYNC_JOB.nightly:
        return nightly(job);
      case SYNC_JOB.syncAccount:
        return syncAccount(job as Job<SyncAccountJob>);
      case SYNC_JOB.syncFinish:
        return syncFinish(job as Job<SyncAccountJob>);
      default:
        log.warn({ jobId: job.id, name: job.name }, 'sync job discarded: unknown job name');
        return { discarded: job.name };
    }
  };
  return { processor, close: () => Promise.all([flows.close(), ingestQueue.close()]).then(() => undefined) };
}
