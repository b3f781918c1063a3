import type pg from 'pg';

/** One row of `ledgerline runs`, newest first. */
export interface RunSummary {
  id: string;
  kind: 'sync' | 'reconciliation' | 'export';
  status: 'succeeded' | 'partial' | 'failed';
  account: string | null;
  accountId: string | null;
  jobId: string | null;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  rows: number | null;
  windows: number | null;
  failedWindows: number | null;
  checksPassed: number | null;
  checksFailed: number | null;
  failures: string[];
  detail: Record<string, unknown>;
}

export interface ListRunsOptions {
  accountId?: string;
  limit: number;
}

interface RunRow {
  id: string;
  kind: RunSummary['kind'];
  status: RunSummary['status'];
  account: string | null;
  account_id: string | null;
  job_id: string | null;
  started_at: Date;
  finished_at: Date;
  rows: number | null;
  windows: number | null;
  failed_windows: number | null;
  checks_passed: number | null;
  checks_failed: number | null;
  failures: string[];
  detail: Record<string, unknown>;
}

const SELECT_RUNS = `
  SELECT r.id, r.kind, r.status, a.name AS account, r.account_id, r.job_id, r.started_at, r.finished_at,
         r.rows, r.windows, r.failed_windows, r.checks_passed, r.checks_failed, r.failures, r.detail
    FROM run r
    LEFT JOIN account a ON a.id = r.account_id
   WHERE ($1::uuid IS NULL OR r.account_id = $1::uuid)
   ORDER BY r.finished_at DESC, r.id
   LIMIT $2`;

/** The last runs, newest first (one account's, or every account's). */
export async function listRuns(pool: pg.Pool, options: ListRunsOptions): Promise<RunSummary[]> {
  const result = await pool.query<RunRow>(SELECT_RUNS, [options.accountId ?? null, options.limit]);
  return result.rows.map((row) => ({
    id: row.id,
    kind: row.kind,
    status: row.status,
    account: row.account,
    accountId: row.account_id,
    jobId: row.job_id,
    startedAt: row.started_at.toISOString(),
    finishedAt: row.finished_at.toISOString(),
    durationMs: row.finished_at.getTime() - row.started_at.getTime(),
    rows: row.rows,
    windows: row.windows,
    failedWindows: row.failed_windows,
    checksPassed: row.checks_passed,
    checksFailed: row.checks_failed,
    failures: row.failures,
    detail: row.detail,
  }));
}
