import type pg from 'pg';

import type { TimeWindow } from '../../exchange/index.ts';
import type { Stream } from '../../streams/registry.ts';

// Coverage is read from its summary (sync_coverage); kept importable from here, beside the windows.
export { accountCoverage, coveredRanges, findGaps, type Range, settleCoveredWindows } from './coverage-summary.ts';

export type WindowStatus = 'pending' | 'running' | 'done' | 'failed';

/** A window of one stream and scope of an account: the half-open [start, end), Unix ms. */
export interface WindowKey extends TimeWindow {
  accountId: string;
  stream: Stream;
  scope: string;
}

export interface SyncWindowRow extends WindowKey {
  id: string;
  status: WindowStatus;
  cursor: string | null;
  pages: number;
  rows: number;
  attempts: number;
  lastError: string | null;
  /** When the window was first planned (Unix ms; absent from rows a test builds by hand). */
  createdAt?: number;
}

// Unix ms <-> timestamptz exactly (to_timestamp goes through a double).
const WINDOW_COLUMNS = `w.id, w.account_id AS "accountId", w.stream, w.scope,
  (extract(epoch from w.window_start) * 1000)::bigint::text AS start,
  (extract(epoch from w.window_end) * 1000)::bigint::text AS "end",
  w.status, w.cursor, w.pages, w.rows, w.attempts, w.last_error AS "lastError",
  (extract(epoch from w.created_at) * 1000)::bigint::text AS "createdAt"`;
const SELECT_WINDOW = `SELECT ${WINDOW_COLUMNS} FROM sync_window w`;

type RawRow = Omit<SyncWindowRow, 'start' | 'end' | 'createdAt'> & { start: string; end: string; createdAt: string };
const toRow = (r: RawRow): SyncWindowRow => ({
  ...r,
  start: Number(r.start),
  end: Number(r.end),
  createdAt: Number(r.createdAt),
});

/**
 * Registers windows (idempotently: an existing window keeps its status and
 * cursor) and returns them all, in the order given. With `refetch`, windows
 * already done are reset to be read again from their first page, keeping
 * `finished_at` (a done window settled by others' coverage gets its last
 * update): a window that finished once stays covered until the new read
 * completes (migration 20261128033000_refetch_keeps_coverage), so a refetch
 * that fails leaves the records of the last complete read covered, not a gap.
 */
export async function ensureWindows(
  db: pg.Pool | pg.ClientBase,
  keys: readonly WindowKey[],
  refetch = false,
): Promise<SyncWindowRow[]> {
  if (keys.length === 0) return [];
  const onConflict = refetch
    ? `DO UPDATE SET status = 'pending', cursor = NULL, pages = 0, rows = 0, last_error = NULL,
         finished_at = CASE WHEN sync_window.status = 'done' THEN COALESCE(sync_window.finished_at, sync_window.updated_at)
                            ELSE sync_window.finished_at END,
         updated_at = now()`
    : 'DO NOTHING';
  const params = [
    keys.map((k) => k.accountId),
    keys.map((k) => k.stream),
    keys.map((k) => k.scope),
    keys.map((k) => String(k.start)),
    keys.map((k) => String(k.end)),
  ];
  const input = `SELECT account_id, stream, scope, ord,
         timestamptz 'epoch' + s * interval '1 millisecond' AS window_start,
         timestamptz 'epoch' + e * interval '1 millisecond' AS window_end
    FROM unnest($1::uuid[], $2::sync_stream[], $3::text[], $4::bigint[], $5::bigint[]) WITH ORDINALITY
      AS i(account_id, stream, scope, s, e, ord)`;
  await db.query(
    `INSERT INTO sync_window (id, account_id, stream, scope, window_start, window_end, updated_at)
     SELECT gen_random_uuid(), account_id, stream, scope, window_start, window_end, now() FROM (${input}) i
     ON CONFLICT (account_id, stream, scope, window_start, window_end) ${onConflict}`,
    params,
  );
  const result = await db.query<RawRow>(
    `SELECT ${WINDOW_COLUMNS}
       FROM sync_window w JOIN (${input}) i USING (account_id, stream, scope, window_start, window_end)
      ORDER BY i.ord`,
    params,
  );
  return result.rows.map(toRow);
}

export async function getWindow(db: pg.Pool | pg.ClientBase, id: string): Promise<SyncWindowRow | undefined> {
  const result = await db.query<RawRow>(`${SELECT_WINDOW} WHERE w.id = $1`, [id]);
  return result.rows[0] && toRow(result.rows[0]);
}

/**
 * Marks a window as being read and returns its state. `newAttempt`: a try of its own (the first,
 * one after a failure or a lost worker) counts in `attempts`; a job back from a budget wait or a
 * time slice only resumes the try it gave its slot up in.
 */
export async function startWindow(db: pg.Pool, id: string, newAttempt = true): Promise<SyncWindowRow | undefined> {
  await db.query(
    `UPDATE sync_window SET status = 'running', attempts = attempts + CASE WHEN $2::boolean THEN 1 ELSE 0 END,
       failing_since = CASE WHEN status = 'failed' THEN NULL ELSE failing_since END,
       started_at = COALESCE(started_at, now()), updated_at = now()
      WHERE id = $1 AND status <> 'done'`,
    [id, newAttempt],
  );
  return getWindow(db, id);
}

/**
 * One request of the window's reading failed (retried or not): it counts as an attempt and its
 * error is the window's last, at once, so progress and status show a failing exchange while the
 * retries go on.
 */
export async function recordFailedRequest(db: pg.Pool, id: string, error: string): Promise<number | undefined> {
  // failing_since marks the first failure since the window's last stored page: how long it has
  // been failing decides when a network error is final (EXCHANGE_FAILURE_BUDGET_MS).
  const result = await db.query<{ failing_ms: string }>(
    `UPDATE sync_window SET attempts = attempts + 1, last_error = $2, updated_at = now(),
            failing_since = COALESCE(failing_since, now())
      WHERE id = $1 AND status <> 'done'
     RETURNING floor(extract(epoch FROM now() - failing_since) * 1000)::bigint AS failing_ms`,
    [id, error.slice(0, 2000)],
  );
  const row = result.rows[0];
  return row ? Number(row.failing_ms) : undefined;
}

export async function failWindow(db: pg.Pool, id: string, error: string, final: boolean): Promise<void> {
  await db.query(
    `UPDATE sync_window SET last_error = $2, status = CASE WHEN $3::boolean THEN 'failed'::sync_window_status ELSE status END,
       failing_since = CASE WHEN $3::boolean THEN NULL ELSE failing_since END,
       updated_at = now() WHERE id = $1 AND status <> 'done'`,
    [id, error.slice(0, 2000), final],
  );
}

/**
 * Windows of an account that were planned but never finished (failed,
 * pending, or left running by a worker that died), oldest first.
 */
export async function unfinishedWindows(
  db: pg.Pool | pg.ClientBase,
  accountId: string,
  streams: readonly Stream[],
): Promise<SyncWindowRow[]> {
  const result = await db.query<RawRow>(
    // The streams compared as text: the account's few open windows filtered, not one descent of
    // the open-window index per stream.
    `${SELECT_WINDOW} WHERE w.account_id = $1 AND w.stream::text = ANY($2::text[]) AND w.status <> 'done'
      ORDER BY w.window_start, w.stream, w.scope`,
    [accountId, streams],
  );
  return result.rows.map(toRow);
}

/**
 * Windows that should have a job by now: pending or running, and untouched
 * for at least `idleMs` (a window just planned is about to be enqueued by its
 * planner; a running one with a live job is skipped by the caller, which asks
 * the queue). Of every account, or only those of `ids`. Oldest first.
 */
export async function idleOpenWindows(
  db: pg.Pool | pg.ClientBase,
  idleMs: number,
  ids?: readonly string[],
): Promise<SyncWindowRow[]> {
  const result = await db.query<RawRow>(
    `${SELECT_WINDOW} WHERE w.status IN ('pending', 'running')
        AND w.updated_at < now() - $1::bigint * interval '1 millisecond'
        AND ($2::uuid[] IS NULL OR w.id = ANY($2::uuid[]))
      ORDER BY w.window_start, w.stream, w.scope`,
    [idleMs, ids ?? null],
  );
  return result.rows.map(toRow);
}

/** Windows about to get a new job: a failed one is pending again (its cursor and last error kept). */
export async function requeueWindows(db: pg.Pool | pg.ClientBase, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `UPDATE sync_window SET status = 'pending', updated_at = now() WHERE id = ANY($1::uuid[]) AND status = 'failed'`,
    [ids],
  );
}

/**
 * Moves a window's start up to where it was really read from: what lies
 * before had passed the exchange's horizon. A window at the old edge of
 * coverage just starts later; one in the middle leaves a gap that
 * reconciliation reports. (Left as it is if an identical window exists.)
 */
export async function narrowWindowStart(db: pg.Pool | pg.ClientBase, id: string, start: number): Promise<void> {
  await db.query(
    `UPDATE sync_window w SET window_start = timestamptz 'epoch' + $2::bigint * interval '1 millisecond', updated_at = now()
      WHERE w.id = $1 AND w.window_start < timestamptz 'epoch' + $2::bigint * interval '1 millisecond'
        AND NOT EXISTS (SELECT 1 FROM sync_window o WHERE o.account_id = w.account_id AND o.stream = w.stream
          AND o.scope = w.scope AND o.window_end = w.window_end
          AND o.window_start = timestamptz 'epoch' + $2::bigint * interval '1 millisecond')`,
    [id, String(start)],
  );
}
