import { type Job, UnrecoverableError } from 'bullmq';

import { LedgerlineError } from '../../src/errors/index.ts';
import type { Logger } from '../../src/logging/logger.ts';
import { fullCheckDue } from '../../src/reconcile/full-check-schedule.ts';
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
export function createReconcileProcessor(
  deps: ReconcileDeps,
  log: Logger,
  /** The full check's schedule: RECONCILE_FULL_EVERY_DAYS (0: never). */
  schedule: { fullEveryDays: number } = { fullEveryDays: 0 },
) {
  return async (job: Job<ReconcileJob>): Promise<ReconcileJobResult> => {
    const { accountId } = job.data;
    try {
      const recount = parseRecountMode(job.data.recount, 'recount');
      // A job may ask for a full check; otherwise the schedule decides (the nightly run's).
      const full =
        job.data.full === true || (await fullCheckDue(deps.pool, accountId, schedule.fullEveryDays, Date.now()));
      log.info({ jobId: job.id, accountId, recount, full }, 'reconciliation started');
      const report = await runReconciliation(deps, { accountId, recount, full });
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
