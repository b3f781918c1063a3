import { UnrecoverableError } from 'bullmq';

import type { ValuationSettings } from '../../src/export/export-request.ts';
import type { FilingThreads } from '../../src/export/filing/filing-threads.ts';
import type { Logger } from '../../src/logging/logger.ts';
import type { FilingJobResult, FilingQueueJob } from '../payloads/filing-job.ts';

export interface FilingProcessorDeps {
  databaseUrl: string;
  valuation?: ValuationSettings | undefined;
  /** Where the walks run: threads, never this process's event loop. */
  threads: FilingThreads;
  log: Logger;
}

/**
 * Computes a method's filing figures of an account (src/export/filing/compute-filing-figures.ts)
 * in a thread, stored under their input version. A version already stored is skipped. An error
 * the same payload will hit again (the account removed) fails the job at once; anything else is
 * retried with the queue's backoff.
 */
export function createFilingProcessor(deps: FilingProcessorDeps) {
  return async (job: FilingQueueJob): Promise<FilingJobResult> => {
    const { accountId, method } = job.data;
    deps.log.info({ jobId: job.id, accountId, method }, 'filing figures started');
    try {
      const computed = await deps.threads.compute({
        databaseUrl: deps.databaseUrl,
        accountId,
        method,
        valuation: deps.valuation,
      });
      deps.log.info({ jobId: job.id, accountId, method, ...computed }, 'filing figures completed');
      return computed;
    } catch (error) {
      if ((error as { retryable?: unknown }).retryable === false) {
        deps.log.warn({ jobId: job.id, accountId, method, err: (error as Error).message }, 'filing figures discarded');
        throw new UnrecoverableError((error as Error).message);
      }
      throw error;
    }
  };
}
