import type pg from 'pg';

import type { ReportStore } from '../../src/reconcile/run-reconciliation.ts';
import type { ReconcileJobResult } from '../payloads/reconcile-job.ts';
import { insertReconciliationRun, reconciliationRun } from '../runs/reconciliation-run.ts';
import type { RecordedRun } from '../runs/record-runs.ts';
import type { RunOutcome, RunStore } from './detached-runs.ts';

/**
 * A queued reconciliation's outcome, kept in Postgres (`reconciliation_run`) and fenced.
 *
 * Each claim on a run takes the next version of its row's `token`; the run writes its outcome (the
 * report with its `run` row, or its error) in one transaction that locks the row and checks the
 * token is still its own. A run whose process stalled past its claim's expiry while another process
 * took the job over finds a newer token and writes nothing; a run whose report is stored is never
 * started again. The job completes from this row, wherever it is picked up, and what a run wrote
 * survives a Redis flush or restart: the run row and its alert come from the stored report.
 */
export class PgRunStore implements RunStore<ReconcileJobResult> {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async takeSettled(runKey: string): Promise<RunOutcome<ReconcileJobResult> | undefined> {
    const found = await this.#pool.query<{ report_id: string | null; passed: boolean | null; failed: string[] | null }>(
      `SELECT r.report_id, p.passed,
              (SELECT coalesce(array_agg(c->>'name'), '{}') FROM jsonb_array_elements(p.checks) c
                WHERE (c->>'passed')::boolean IS NOT TRUE) AS failed
         FROM reconciliation_run r LEFT JOIN reconciliation_report p ON p.id = r.report_id
        WHERE r.run_key = $1`,
      [runKey],
    );
    const row = found.rows[0];
    if (row === undefined) return undefined;
    if (row.report_id !== null) {
      return {
        ok: true,
        value: { reportId: row.report_id, passed: row.passed === true, failedChecks: row.failed ?? [] },
      };
    }
    // Taken: a retry of the job claims the run again and starts afresh.
    const taken = await this.#pool.query<{ error: string; retryable: boolean | null }>(
      `UPDATE reconciliation_run n SET error = NULL, retryable = NULL, updated_at = now()
         FROM (SELECT error, retryable FROM reconciliation_run WHERE run_key = $1 FOR UPDATE) o
        WHERE n.run_key = $1 AND o.error IS NOT NULL
        RETURNING o.error, o.retryable`,
      [runKey],
    );
    const error = taken.rows[0];
    return error ? { ok: false, message: error.error, retryable: error.retryable !== false } : undefined;
  }

  async fence(runKey: string): Promise<number | undefined> {
    const claimed = await this.#pool.query<{ token: number }>(
      `INSERT INTO reconciliation_run (run_key, token) VALUES ($1, 1)
       ON CONFLICT (run_key) DO UPDATE SET token = reconciliation_run.token + 1, updated_at = now()
        WHERE reconciliation_run.report_id IS NULL
       RETURNING token`,
      [runKey],
    );
    return claimed.rows[0]?.token;
  }

  async storeError(runKey: string, token: number, message: string, retryable: boolean): Promise<boolean> {
    const stored = await this.#pool.query(
      `UPDATE reconciliation_run SET error = $3, retryable = $4, updated_at = now()
        WHERE run_key = $1 AND token = $2 AND report_id IS NULL`,
      [runKey, token, message, retryable],
    );
    return stored.rowCount === 1;
  }

  /**
   * The report store of the run holding `token`: the report, its `run` row (job `jobId`) and the
   * run's outcome in one transaction, or nothing when the token is no longer the latest. `written`
   * is told of the run row once it has committed (the alerts, the metrics).
   */
  reportStore(runKey: string, token: number, jobId: string, written: (run: RecordedRun) => void): ReportStore {
    return async (report, insert) => {
      const client = await this.#pool.connect();
      let run: RecordedRun;
      try {
        await client.query('BEGIN');
        const fence = await client.query<{ token: number; report_id: string | null }>(
          `SELECT token, report_id FROM reconciliation_run WHERE run_key = $1 FOR UPDATE`,
          [runKey],
        );
        const current = fence.rows[0];
        if (current === undefined || current.token !== token || current.report_id !== null) {
          await client.query('ROLLBACK');
          return undefined;
        }
        const reportId = await insert(client, runKey);
        run = reconciliationRun(report, reportId, jobId);
        await insertReconciliationRun(client, run);
        await client.query(`UPDATE reconciliation_run SET report_id = $2, updated_at = now() WHERE run_key = $1`, [
          runKey,
          reportId,
        ]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
      written(run);
      return (run.detail as { reportId: string }).reportId;
    };
  }
}
