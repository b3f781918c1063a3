import type pg from 'pg';

import type { Stream } from '../streams/registry.ts';

export interface StreamProgress {
  stream: Stream;
  total: number;
  done: number;
  failed: number;
  rows: number;
}

export interface FailedWindow {
  stream: Stream;
  scope: string;
  start: number;
  end: number;
  lastError: string | null;
}

/** Progress of a set of windows, per stream, in one query. */
export async function windowProgress(pool: pg.Pool, ids: readonly string[]): Promise<StreamProgress[]> {
  const result = await pool.query<{ stream: Stream; total: string; done: string; failed: string; rows: string }>(
    `SELECT stream, count(*) AS total, count(*) FILTER (WHERE status = 'done') AS done,
            count(*) FILTER (WHERE status = 'failed') AS failed, COALESCE(sum(rows), 0) AS rows
       FROM sync_window WHERE id = ANY($1::uuid[]) GROUP BY stream ORDER BY stream`,
    [ids],
  );
  return result.rows.map((r) => ({
    stream: r.stream,
    total: Number(r.total),
    done: Number(r.done),
    failed: Number(r.failed),
    rows: Number(r.rows),
  }));
}

export async function failedWindows(pool: pg.Pool, ids: readonly string[]): Promise<FailedWindow[]> {
  const result = await pool.query<{
    stream: Stream;
    scope: string;
    start: string;
    end: string;
    lastError: string | null;
  }>(
    `SELECT stream, scope, (extract(epoch from window_start) * 1000)::bigint::text AS start,
            (extract(epoch from window_end) * 1000)::bigint::text AS "end", last_error AS "lastError"
       FROM sync_window WHERE id = ANY($1::uuid[]) AND status = 'failed' ORDER BY stream, window_start`,
    [ids],
  );
  return result.rows.map((r) => ({ ...r, start: Number(r.start), end: Number(r.end) }));
}
