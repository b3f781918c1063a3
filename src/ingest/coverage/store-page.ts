import type pg from 'pg';

import { toPayload, upsertSql, type UpsertStats } from '../bulk-upsert.ts';
import type { TableSpec } from '../tables/table-spec.ts';
import { WindowConflictError } from './window-conflict-error.ts';

export interface PageToStore<R> {
  windowId: string;
  accountId: string;
  spec: TableSpec<R>;
  records: readonly R[];
  /** The cursor this page was requested from (null for the first page). */
  fromCursor: string | null;
  /** The cursor to continue from after this page. */
  nextCursor: string | null;
  /** True when this was the window's last page: the window becomes done. */
  last: boolean;
}

const sqlCache = new WeakMap<TableSpec<unknown>, string>();

/**
 * One statement: the window's cursor advances only from the cursor this page
 * continued from, and the rows are written only if it did
 * (`WHERE EXISTS (SELECT 1 FROM advanced)`), so rows and checkpoint commit
 * together or not at all.
 */
function storePageSql<R>(spec: TableSpec<R>): string {
  const cached = sqlCache.get(spec);
  if (cached) return cached;
  // $1 is the page (one json array), $2 the window, $3 the next cursor, $4 the
  // page's row count, $5 whether it is the last page, $6 the cursor it was read from.
  const upsert = upsertSql(spec, 1, 'EXISTS (SELECT 1 FROM advanced)');
  const sql = `WITH advanced AS (
  UPDATE sync_window
     SET cursor = $3,
         pages = pages + 1,
         rows = rows + $4,
         status = CASE WHEN $5::boolean THEN 'done'::sync_window_status ELSE 'running'::sync_window_status END,
         finished_at = CASE WHEN $5::boolean THEN now() ELSE NULL END,
         last_error = CASE WHEN $5::boolean THEN NULL ELSE last_error END,
         updated_at = now()
   WHERE id = $2 AND cursor IS NOT DISTINCT FROM $6 AND status <> 'done'
  RETURNING id
), written AS (
${upsert}
)
SELECT (SELECT count(*) FROM advanced)::int AS advanced,
       (SELECT count(*) FILTER (WHERE inserted) FROM written)::int AS inserted,
       (SELECT count(*) FROM written)::int AS written`;
  sqlCache.set(spec, sql);
  return sql;
}

/**
 * Stores a page's rows AND advances its window's cursor atomically, so a
 * crash at any instant leaves either both or neither: a restarted job resumes
 * from the stored cursor and re-reads at most the page in flight (whose rows
 * the upsert absorbs without duplicates).
 *
 * Pages before the last commit without waiting for the WAL flush
 * (synchronous_commit off): should Postgres itself crash, it loses at most
 * the last moments of commits, rows and cursor together, and the window
 * re-reads them from the older cursor. The page that completes a window
 * waits for the flush, so "done" is durable before the job reports success.
 *
 * The setting is `SET LOCAL` inside the page's own transaction: a plain `SET`
 * would stay on the pooled connection and make every later statement of
 * whoever borrows it (a management action, a report) asynchronous too.
 */
export async function storePage<R>(pool: pg.Pool, page: PageToStore<R>): Promise<UpsertStats> {
  const payload = toPayload(page.spec, page.records, page.accountId);
  const params = [payload.json, page.windowId, page.nextCursor, page.records.length, page.last, page.fromCursor];
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    try {
      await client.query(page.last ? 'SET LOCAL synchronous_commit = on' : 'SET LOCAL synchronous_commit = off');
      const result = await client.query<{ advanced: number; inserted: number; written: number }>(
        storePageSql(page.spec),
        params,
      );
      const row = result.rows[0]!;
      if (row.advanced !== 1) throw new WindowConflictError(page.windowId);
      await client.query('COMMIT');
      return { inserted: row.inserted, updated: row.written - row.inserted, unchanged: payload.rows - row.written };
    } catch (error) {
      // A connection that cannot even roll back is not given back to the pool.
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw error;
    }
  } finally {
    client.release(broken);
  }
}
