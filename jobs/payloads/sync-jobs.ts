import { ValidationError } from '../../src/errors/index.ts';

/** Payloads on QUEUE.sync (account ids only, never a secret); job names are in ../definitions.ts. */
export interface SyncAccountJob {
  accountId: string;
  /** Identifies the run (the nightly job's time); makes job ids deterministic per run. */
  runId: string;
}

export type SyncFinishJob = SyncAccountJob;

export const syncAccountJobId = (job: SyncAccountJob) => `sync.${job.accountId}.${job.runId}`;
export const syncFinishJobId = (job: SyncFinishJob) => `sync-finish.${job.accountId}.${job.runId}`;

/** A sync-account or sync-finish payload, checked: a job added by hand with a wrong shape fails, naming the field. */
export function parseSyncAccountJob(data: unknown): SyncAccountJob {
  const record = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
  for (const field of ['accountId', 'runId'] as const) {
    if (typeof record[field] !== 'string' || record[field] === '') {
      throw new ValidationError(field, 'must be a non-empty string in a sync job', record[field]);
    }
  }
  return { accountId: String(record.accountId), runId: String(record.runId) };
}
