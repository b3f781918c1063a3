import type pg from 'pg';

import type { TimeWindow } from '../../exchange/index.ts';
import type { Stream } from '../../streams/registry.ts';

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
}

// Unix ms <-> timestamptz exactly (to_timestamp goes through a double).
const WINDOW_COLUMNS = `w.id, w.account_id AS "accountId", w.stream, w.scope,
  (extract(epoch from w.window_start) * 1000)::bigint::text AS start,
  (extract(epoch from w.window_end) * 1000)::bigint::text AS "end",
  w.status, w.cursor, w.pages, w.rows, w.attempts, w.last_error AS "lastError"`;
const SELECT_WINDOW = `SELECT ${WINDOW_COLUMNS} FROM sync_window w`;

type RawRow = Omit<SyncWindowRow, 'start' | 'end'> & { start: string; end: string };
const toRow = (r: RawRow): SyncWindowRow => ({ ...r, start: Number(r.start), end: Number(r.end) });

/**
 * Registers windows (idempotently: an existing window keeps its status and
 * cursor) and returns them all, in the order given. With `refetch`, windows
 * already done are reset to be read again from their first page.
 */
export async function ensureWindows(
  db: pg.Pool | pg.ClientBase,
  keys: readonly WindowKey[],
  refetch = false,
): Promise<SyncWindowRow[]> {
  if (keys.length === 0) return [];
  const onConflict = refetch
    ? `DO UPDATE SET status = 'pending', cursor = NULL, pages = 0, rows = 0, last_error = NULL, finished_at = NULL, updated_at = now()`
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
export async function recordFailedRequest(db: pg.Pool, id: string, error: string): Promise<void> {
  await db.query(
    `UPDATE sync_window SET attempts = attempts + 1, last_error = $2, updated_at = now()
      WHERE id = $1 AND status <> 'done'`,
    [id, error.slice(0, 2000)],
  );
}

export async function failWindow(db: pg.Pool, id: string, error: string, final: boolean): Promise<void> {
  await db.query(
    `UPDATE sync_window SET last_error = $2, status = CASE WHEN $3::boolean THEN 'failed'::sync_window_status ELSE status END,
       updated_at = now() WHERE id = $1 AND status <> 'done'`,
    [id, error.slice(0, 2000), final],
  );
}

/** A covered or missing stretch of a stream: the same [start, end) shape as a window. */
export type Range = TimeWindow;

/**
 * The parts of [from, to) that no done window of the stream covers, oldest
 * first. Computed by Postgres multirange arithmetic over the ledger.
 */
export async function findGaps(
  db: pg.Pool,
  key: { accountId: string; stream: Stream; scope: string },
  from: number,
  to: number,
): Promise<Range[]> {
  const result = await db.query<{ start: string; end: string }>(
    `WITH covered AS (
       SELECT COALESCE(range_agg(tstzrange(window_start, window_end, '[)')), '{}'::tstzmultirange) AS r
         FROM sync_window WHERE account_id = $1 AND stream = $2 AND scope = $3 AND status = 'done'
     ), gaps AS (
       SELECT unnest(tstzmultirange(tstzrange((timestamptz 'epoch' + $4 * interval '1 millisecond'), (timestamptz 'epoch' + $5 * interval '1 millisecond'), '[)')) - covered.r) AS g
         FROM covered
     )
     SELECT (extract(epoch from lower(g)) * 1000)::bigint::text AS start,
            (extract(epoch from upper(g)) * 1000)::bigint::text AS "end"
       FROM gaps ORDER BY lower(g)`,
    [key.accountId, key.stream, key.scope, String(from), String(to)],
  );
  return result.rows.map((r) => ({ start: Number(r.start), end: Number(r.end) }));
}

/** The covered ranges of a stream (done windows merged), oldest first. */
export async function coveredRanges(
  db: pg.Pool,
  key: { accountId: string; stream: Stream; scope: string },
): Promise<Range[]> {
  const result = await db.query<{ start: string; end: string }>(
    `SELECT (extract(epoch from lower(g)) * 1000)::bigint::text AS start,
            (extract(epoch from upper(g)) * 1000)::bigint::text AS "end"
       FROM (SELECT unnest(range_agg(tstzrange(window_start, window_end, '[)'))) AS g
               FROM sync_window WHERE account_id = $1 AND stream = $2 AND scope = $3 AND status = 'done') x
      ORDER BY lower(g)`,
    [key.accountId, key.stream, key.scope],
  );
  return result.rows.map((r) => ({ start: Number(r.start), end: Number(r.end) }));
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
    `${SELECT_WINDOW} WHERE w.account_id = $1 AND w.stream = ANY($2::sync_stream[]) AND w.status <> 'done'
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

/**
 * Every stream's and scope's coverage of an account in one statement: done windows merged, as
 * intervals (whatever boundaries the windows were cut at), oldest first. An unknown stream or
 * scope has none.
 */
export async function accountCoverage(
  db: pg.Pool,
  accountId: string,
): Promise<(stream: Stream, scope: string) => readonly Range[]> {
  const result = await db.query<{ stream: Stream; scope: string; start: string; end: string }>(
    `SELECT stream, scope, (extract(epoch from lower(g)) * 1000)::bigint::text AS start,
            (extract(epoch from upper(g)) * 1000)::bigint::text AS "end"
       FROM (SELECT stream, scope, unnest(range_agg(tstzrange(window_start, window_end, '[)'))) AS g
               FROM sync_window WHERE account_id = $1 AND status = 'done' GROUP BY stream, scope) x
      ORDER BY stream, scope, lower(g)`,
    [accountId],
  );
  const byKey = new Map<string, Range[]>();
  for (const row of result.rows) {
    const key = `${row.stream}\u0000${row.scope}`;
    const list = byKey.get(key) ?? [];
    list.push({ start: Number(row.start), end: Number(row.end) });
    byKey.set(key, list);
  }
  return (stream, scope) => byKey.get(`${stream}\u0000${scope}`) ?? [];
}

/**
 * Marks done the unfinished windows (pending or failed, never one being read) that other done
 * windows already cover wholly: a window planned before the grid, or by another `--from`, whose
 * stretch a later read completed. Retrying it would read the stretch again, and one of a
 * forgetting stream would later be reported lost although its records are stored. Returns how
 * many were settled. (finished_at stays empty: nothing was read, so it is no sync's success.)
 */
export async function settleCoveredWindows(
  db: pg.Pool | pg.ClientBase,
  accountId: string,
  streams: readonly Stream[],
): Promise<number> {
  const result = await db.query(
    `WITH covered AS (
       SELECT stream, scope, range_agg(tstzrange(window_start, window_end, '[)')) AS r
         FROM sync_window WHERE account_id = $1 AND stream = ANY($2::sync_stream[]) AND status = 'done'
        GROUP BY stream, scope)
     UPDATE sync_window w SET status = 'done', updated_at = now()
       FROM covered c
      WHERE w.account_id = $1 AND w.stream = c.stream AND w.scope = c.scope AND w.status IN ('pending', 'failed')
        AND c.r @> tstzrange(w.window_start, w.window_end, '[)')`,
    [accountId, streams],
  );
  return result.rowCount ?? 0;
}
