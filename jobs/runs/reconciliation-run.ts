import type { UnsavedReport } from '../../src/reconcile/run-reconciliation.ts';
import type { ReportDb } from '../../src/reconcile/run-reconciliation.ts';
import type { RecordedRun } from './record-runs.ts';

/** The `run` row of a reconciliation whose report was written: failed when any check failed. */
export function reconciliationRun(report: UnsavedReport, reportId: string, jobId: string): RecordedRun {
  const failedChecks = report.checks.filter((c) => !c.passed).map((c) => c.name);
  return {
    kind: 'reconciliation',
    status: report.passed ? 'succeeded' : 'failed',
    accountId: report.accountId,
    accountName: report.accountName,
    jobId,
    startedAt: report.startedAt,
    finishedAt: report.finishedAt,
    checksPassed: report.checks.length - failedChecks.length,
    checksFailed: failedChecks.length,
    failures: failedChecks,
    detail: { reportId },
  };
}

/** Inserts a reconciliation's run row on `db`: inside the transaction that writes its report. */
export async function insertReconciliationRun(db: ReportDb, run: RecordedRun): Promise<void> {
  await db.query(
    `INSERT INTO run (id, kind, status, account_id, job_id, started_at, finished_at, checks_passed, checks_failed, failures, detail)
     VALUES (gen_random_uuid(), 'reconciliation', $1::run_status, $2, $3, $4, $5, $6, $7, $8::text[], $9::jsonb)`,
    [
      run.status,
      run.accountId,
      run.jobId,
      run.startedAt,
      run.finishedAt,
      run.checksPassed,
      run.checksFailed,
      run.failures,
      JSON.stringify(run.detail),
    ],
  );
}
