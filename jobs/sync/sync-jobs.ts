/** Job names on QUEUE.sync, and their payloads (account ids only, never a secret). */
export const SYNC_JOB = {
  /** The nightly cron's job: enqueues one sync-account job per registered account. */
  nightly: 'nightly',
  /** Plans one account's incremental sync and adds its ingest windows as children of a sync-finish job. */
  syncAccount: 'sync-account',
  /** Runs once every window of the account's sync has finished (or failed): reconciliation and exports follow. */
  syncFinish: 'sync-finish',
} as const;

export interface SyncAccountJob {
  accountId: string;
  /** Identifies the run (the nightly job's time); makes job ids deterministic per run. */
  runId: string;
}

export type SyncFinishJob = SyncAccountJob;

export const syncAccountJobId = (job: SyncAccountJob) => `sync.${job.accountId}.${job.runId}`;
export const syncFinishJobId = (job: SyncFinishJob) => `sync-finish.${job.accountId}.${job.runId}`;
