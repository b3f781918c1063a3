import type pg from 'pg';

import type { Alert, AlertSender } from './alert-sender.ts';
import type { RecordedRun, RunListener } from './run-listener.ts';

const EVENTS = { sync: 'sync_failed', reconciliation: 'reconciliation_failed', export: 'export_failed' } as const;

async function accountName(pool: pg.Pool, accountId: string | null | undefined): Promise<string | null> {
  if (!accountId) return null;
  const result = await pool.query<{ name: string }>('SELECT name FROM account WHERE id = $1', [accountId]);
  return result.rows[0]?.name ?? null;
}

/** The alert for a run that failed (a partial sync is not one: its windows are read again next time). */
export async function alertOfRun(pool: pg.Pool, run: RecordedRun): Promise<Alert | undefined> {
  if (run.status !== 'failed') return undefined;
  const account = await accountName(pool, run.accountId).catch(() => null);
  const failures = Array.isArray(run.failures) ? run.failures : [];
  const who = account ?? run.accountId ?? 'no account';
  return {
    event: EVENTS[run.kind],
    text: `ledgerline: ${run.kind} FAILED for ${who}: ${failures[0] ?? 'see ledgerline runs'}`,
    account,
    accountId: run.accountId ?? null,
    kind: run.kind,
    jobId: run.jobId ?? null,
    failures,
    at: new Date(run.finishedAt).toISOString(),
  };
}

/** A run listener that sends an alert for each failed sync, reconciliation and export. */
export function alertOnRuns(pool: pg.Pool, sender: AlertSender): RunListener {
  return (run) => {
    void alertOfRun(pool, run).then((alert) => {
      if (alert) sender.send(alert);
    });
  };
}
