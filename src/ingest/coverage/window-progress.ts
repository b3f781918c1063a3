import type pg from 'pg';

import type { Stream } from '../../streams/registry.ts';

export interface StreamProgress {
  stream: Stream;
  total: number;
  done: number;
  failed: number;
  rows: number;
  /** Records the windows' current reads found changed since an earlier read (kept in record_revision). */
  revised: number;
  /** Pages read by the windows done (one request each): what a window takes on average. */
  donePages: number;
  /** Pages read so far by the windows not finished. */
  openPages: number;
  /** Attempts beyond each window's first: the retries the progress view shows. */
  retries: number;
  /** The error of the window that failed most recently (retried or given up), if any. */
  lastError: string | null;
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
  const result = await pool.query<{
    stream: Stream;
    total: string;
    done: string;
    failed: string;
    rows: string;
    revised: string;
    done_pages: string;
    open_pages: string;
    retries: string;
    last_error: string | null;
  }>(
    `SELECT stream, count(*) AS total, count(*) FILTER (WHERE status = 'done') AS done,
            count(*) FILTER (WHERE status = 'failed') AS failed, COALESCE(sum(rows), 0) AS rows,
            COALESCE(sum(r.revised), 0) AS revised,
            COALESCE(sum(pages) FILTER (WHERE status = 'done'), 0) AS done_pages,
            COALESCE(sum(pages) FILTER (WHERE status NOT IN ('done', 'failed')), 0) AS open_pages,
            COALESCE(sum(GREATEST(attempts - 1, 0)), 0) AS retries,
            (array_agg(last_error ORDER BY updated_at DESC) FILTER (WHERE last_error IS NOT NULL))[1] AS last_error
       FROM sync_window w
       CROSS JOIN LATERAL (SELECT count(*) AS revised FROM record_revision v
                            WHERE v.window_id = w.id AND v.read_id = w.read_id) r
      WHERE w.id = ANY($1::uuid[]) GROUP BY stream ORDER BY stream`,
    [ids],
  );
  return result.rows.map((r) => ({
    stream: r.stream,
    total: Number(r.total),
    done: Number(r.done),
    failed: Number(r.failed),
    rows: Number(r.rows),
    revised: Number(r.revised),
    donePages: Number(r.done_pages),
    openPages: Number(r.open_pages),
    retries: Number(r.retries),
    lastError: r.last_error,
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
