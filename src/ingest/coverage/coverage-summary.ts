import type pg from 'pg';

import { msParam, toMs } from '../../db/sql-time.ts';
import type { TimeWindow } from '../../exchange/index.ts';
import type { Stream } from '../../streams/registry.ts';

/*
 * Coverage read from its summary, never from every window.
 *
 * `sync_coverage` holds, per (account, stream, scope) with any window, the union of its done
 * windows as one tstzmultirange (merged intervals: a handful however many nights have passed) and
 * how many windows it has. Triggers on sync_window keep it in the statement that changes a window
 * (migration 20261126120642_sync_coverage), so it can never disagree with the ledger, whoever
 * wrote the window. What the summary does not hold is read through small partial indexes: the
 * windows not done (`sync_window_open_idx`), the newest finished window (`..._done_finished_idx`)
 * and the windows carrying an error (`..._error_idx`).
 *
 * Every done window lies inside the covered ranges and the earliest (latest) of them starts (ends)
 * where they do, so "the earliest window ever planned" is the earlier of the first covered start
 * and the first open window's start: no scan of the done windows is needed for that either.
 */

/** A covered or missing stretch of a stream: the same [start, end) shape as a window. */
export type Range = TimeWindow;

export interface StreamScopeKey {
  accountId: string;
  stream: Stream;
  scope: string;
}

/** A multirange expression as a JSON array of [start, end] in Unix ms (text), oldest first. */
export function rangesJson(multirange: string): string {
  return `(SELECT COALESCE(json_agg(json_build_array(${toMs('lower(g)')}, ${toMs('upper(g)')}) ORDER BY lower(g)), '[]')
             FROM unnest(${multirange}) AS g)`;
}

export function parseRanges(json: readonly (readonly [string, string])[]): Range[] {
  return json.map(([start, end]) => ({ start: Number(start), end: Number(end) }));
}

/** The covered ranges of a stream (done windows merged), oldest first. */
export async function coveredRanges(db: pg.Pool | pg.ClientBase, key: StreamScopeKey): Promise<Range[]> {
  const result = await db.query<{ ranges: [string, string][] }>(
    `SELECT ${rangesJson('c.covered')} AS ranges
       FROM sync_coverage c WHERE c.account_id = $1 AND c.stream = $2 AND c.scope = $3`,
    [key.accountId, key.stream, key.scope],
  );
  return parseRanges(result.rows[0]?.ranges ?? []);
}

/** The parts of [from, to) that no done window of the stream covers, oldest first. */
export async function findGaps(
  db: pg.Pool | pg.ClientBase,
  key: StreamScopeKey,
  from: number,
  to: number,
): Promise<Range[]> {
  const result = await db.query<{ ranges: [string, string][] }>(
    `SELECT ${rangesJson(
      `tstzmultirange(tstzrange(${msParam(4)}, ${msParam(5)}, '[)'))
         - COALESCE((SELECT c.covered FROM sync_coverage c WHERE c.account_id = $1 AND c.stream = $2 AND c.scope = $3),
                    '{}'::tstzmultirange)`,
    )} AS ranges`,
    [key.accountId, key.stream, key.scope, String(from), String(to)],
  );
  return parseRanges(result.rows[0]!.ranges);
}

/**
 * Every stream's and scope's coverage of an account in one statement: done windows merged, as
 * intervals (whatever boundaries the windows were cut at), oldest first. An unknown stream or
 * scope has none.
 */
export async function accountCoverage(
  db: pg.Pool | pg.ClientBase,
  accountId: string,
): Promise<(stream: Stream, scope: string) => readonly Range[]> {
  const result = await db.query<{ stream: Stream; scope: string; ranges: [string, string][] }>(
    `SELECT c.stream, c.scope, ${rangesJson('c.covered')} AS ranges FROM sync_coverage c WHERE c.account_id = $1`,
    [accountId],
  );
  const byKey = new Map<string, Range[]>();
  for (const row of result.rows) byKey.set(`${row.stream}\u0000${row.scope}`, parseRanges(row.ranges));
  return (stream, scope) => byKey.get(`${stream}\u0000${scope}`) ?? [];
}

/**
 * Where an account's windows of these streams start: the earliest window ever planned (done or
 * not), or null when there is none.
 */
export async function earliestWindowStart(
  db: pg.Pool | pg.ClientBase,
  accountId: string,
  streams: readonly Stream[],
): Promise<Date | null> {
  const result = await db.query<{ start: Date | null }>(
    `SELECT least((SELECT min(lower(c.covered)) FROM sync_coverage c
                    WHERE c.account_id = $1 AND c.stream = ANY($2::sync_stream[])),
                  (SELECT min(w.window_start) FROM sync_window w
                    WHERE w.account_id = $1 AND w.stream = ANY($2::sync_stream[]) AND w.status <> 'done')) AS start`,
    [accountId, streams],
  );
  return result.rows[0]?.start ?? null;
}

/**
 * Where each scope of one stream starts: per scope, the earliest window ever planned (done or
 * not). The scopes of a stream start apart where a horizon narrows each first window when it runs
 * (the futures ledger's product types, read one after another as its 1-year horizon slides).
 */
export async function scopeWindowStarts(
  db: pg.Pool | pg.ClientBase,
  accountId: string,
  stream: Stream,
): Promise<Map<string, Date>> {
  const result = await db.query<{ scope: string; start: Date }>(
    `SELECT scope, min(start) AS start FROM (
       SELECT c.scope, min(lower(c.covered)) AS start FROM sync_coverage c
        WHERE c.account_id = $1 AND c.stream = $2::sync_stream GROUP BY c.scope
       UNION ALL
       SELECT w.scope, min(w.window_start) FROM sync_window w
        WHERE w.account_id = $1 AND w.stream = $2::sync_stream AND w.status <> 'done' GROUP BY w.scope
     ) s WHERE start IS NOT NULL GROUP BY scope`,
    [accountId, stream],
  );
  return new Map(result.rows.map((r) => [r.scope, r.start]));
}

/**
 * Marks done the unfinished windows (pending or failed, never one being read) that other done
 * windows already cover wholly: a window planned before the grid, or by another `--from`, whose
 * stretch a later read completed. Retrying it would read the stretch again, and one of a
 * forgetting stream would later be reported lost although its records are stored. Returns how
 * many were settled. (finished_at stays empty: nothing was read, so it is no sync's success.) A
 * window re-read after it finished (--refetch; finished_at kept) covers its own range: it is read
 * again, never settled by its own coverage.
 */
export async function settleCoveredWindows(
  db: pg.Pool | pg.ClientBase,
  accountId: string,
  streams: readonly Stream[],
): Promise<number> {
  const result = await db.query(
    `UPDATE sync_window w SET status = 'done', updated_at = now()
       FROM sync_coverage c
      -- "<> 'done'" as the partial index of the windows not done is written, so the planner takes it.
      -- The streams compared as text: a filter on the account's few open windows, not one index
      -- descent per stream (the index is reached by the account alone).
      WHERE w.account_id = $1 AND w.stream::text = ANY($2::text[]) AND w.status <> 'done'
        AND w.status IN ('pending', 'failed') AND w.finished_at IS NULL
        AND c.account_id = w.account_id AND c.stream = w.stream AND c.scope = w.scope
        AND c.covered @> tstzrange(w.window_start, w.window_end, '[)')`,
    [accountId, streams],
  );
  return result.rowCount ?? 0;
}
