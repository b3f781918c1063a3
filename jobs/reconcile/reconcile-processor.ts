import { type Job, UnrecoverableError } from 'bullmq';

import { LedgerlineError } from '../../src/errors/index.ts';
import type { Logger } from '../../src/logging/logger.ts';
import { parseRecountMode } from '../../src/reconcile/recount-mode.ts';
import { type ReconcileDeps, runReconciliation } from '../../src/reconcile/run-reconciliation.ts';
import type { ReconcileJob, ReconcileJobResult } from '../payloads/reconcile-job.ts';

/**
 * Reconciles one account and writes its report row. Failing checks are the
 * report's verdict, not the job's: the job completes and logs the failures
 * (at warn). Only a run that cannot happen fails the job: a bad payload or
 * an unknown account at once, anything else (the database down) after the
 * queue's retries.
 */
export function createReconcileProcessor(deps: ReconcileDeps, log: Logger) {
  return async (job: Job<ReconcileJob>): Promise<ReconcileJobResult> => {
    const { accountId } = job.data;
    try {
      const recount = parseRecountMode(job.data.recount, 'recount');
      log.info({ jobId: job.id, accountId, recount }, 'reconciliation started');
      const report = await runReconciliation(deps, { accountId, recount });
      const failedChecks = report.checks.filter((c) => !c.passed).map((c) => c.name);
      log[report.passed ? 'info' : 'warn'](
        {
          jobId: job.id,
          accountId,
          account: report.accountName,
          reportId: report.id,
          passed: report.passed,
          failedChecks,
          failures: report.checks.flatMap((c) => c.failures).slice(0, 20),
        },
        `reconciliation completed for ${report.accountName}: ${report.passed ? 'passed' : 'FAILED'}`,
      );
      return { reportId: report.id, passed: report.passed, failedChecks };
    } catch (error) {
      log.error({ jobId: job.id, accountId, err: error }, 'reconciliation could not run');
      if (error instanceof LedgerlineError && !error.retryable) throw new UnrecoverableError(error.toOneLine());
      throw error;
    }
  };
}
