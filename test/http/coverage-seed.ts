import type { Stream } from '../../src/streams/registry.ts';
import { withClient } from '../export/seed.ts';

export interface WindowSeed {
  stream: Stream;
  scope?: string;
  start: string;
  end: string;
  status: 'pending' | 'running' | 'done' | 'failed';
  lastError?: string;
  /** When a done window finished (default: an hour ago). */
  finishedAt?: string;
}

/** Rows of the coverage ledger, as the ingest would have left them. */
export async function insertWindows(url: string, accountId: string, windows: WindowSeed[]): Promise<void> {
  await withClient(url, async (c) => {
    for (const w of windows) {
      await c.query(
        `INSERT INTO sync_window (id, account_id, stream, scope, window_start, window_end, status, last_error,
                                  finished_at, updated_at)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6::sync_window_status, $7,
                 CASE WHEN $6::text = 'done' THEN COALESCE($8::timestamptz, now() - interval '1 hour') END, now())`,
        [accountId, w.stream, w.scope ?? '', w.start, w.end, w.status, w.lastError ?? null, w.finishedAt ?? null],
      );
    }
  });
}

export async function insertReconciliation(
  url: string,
  accountId: string,
  report: { passed: boolean; summary: string; finishedAt: string },
): Promise<void> {
  await withClient(url, (c) =>
    c.query(
      `INSERT INTO reconciliation_report (id, account_id, recount, started_at, finished_at, passed, checks, summary)
       VALUES (gen_random_uuid(), $1, 'recent', $2::timestamptz - interval '1 minute', $2, $3, '[]', $4)`,
      [accountId, report.finishedAt, report.passed, report.summary],
    ),
  );
}
