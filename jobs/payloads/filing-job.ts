import { createHash } from 'node:crypto';

import type { Job, Queue } from 'bullmq';

import type { RulesMethod } from '../../src/accounting/gains/gains-method.ts';

/**
 * A filing computation's payload: the account by id, the method, and the input version the page
 * read (it names the job; the worker reads the version again and stores what it walked under it).
 */
export interface FilingJob {
  accountId: string;
  method: RulesMethod;
  inputVersion: string;
}

export interface FilingJobResult {
  inputVersion: string;
  current: boolean;
  skipped: boolean;
  computeMs: number;
}

export type FilingQueue = Queue<FilingJob, FilingJobResult, string, FilingJob, FilingJobResult, string>;
export type FilingQueueJob = Job<FilingJob, FilingJobResult, string>;

/**
 * One job per account, method and input version: every view of the same figures asks for the same
 * id, so concurrent views share one computation. The version is hashed (short ids: a URL may carry them).
 */
export function filingJobId(job: FilingJob): string {
  const version = createHash('sha256').update(job.inputVersion).digest('hex').slice(0, 16);
  return `filing.${job.accountId}.${job.method}.${version}`;
}
