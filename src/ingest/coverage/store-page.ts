import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

import type { TableSpec } from '../../streams/kit/table-spec.ts';
import { type PageRows, pageRows, toPayload, type UpsertStats } from '../bulk-upsert.ts';
import { DuplicateRecordError } from '../duplicate-record-error.ts';
import { ADVANCE_SQL, copySql, storePageSql } from './page-store-sql.ts';
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
  /**
   * The last page was an empty one after a full page (or after a resumed read's earlier pages):
   * kept on the window (`ended_after_full_page`) so its read does not vouch for itself
   * (src/reconcile/read-marks.ts).
   */
  endedAfterFullPage?: boolean;
}

/**
 * Stores a page's rows AND advances its window's cursor atomically, so a
 * crash at any instant leaves either both or neither: a restarted job resumes
 * from the stored cursor and re-reads at most the page in flight (whose rows
 * the upsert absorbs without duplicates).
 *
 * Two ways, each one transaction. First the fast one, for rows not stored yet
 * (a first backfill, the new end of a nightly sync): the cursor advances,
 * then COPY writes the rows straight into the table, at the speed of COPY
 * itself. Should any row's key be stored already (a re-read lookback, a
 * refetch, another worker's overlapping window, a later page of this read
 * repeating a record), COPY fails on the primary key, the whole transaction
 * rolls back (cursor included) and the page is stored the careful way: one
 * statement advancing the cursor and upserting the rows (page-store-sql.ts:
 * a repeat of this read with other content is a DuplicateRecordError, a change
 * since an earlier read an update whose old `raw` is kept in record_revision).
 * Either way rows and cursor commit together or not at all.
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
  const client = await pool.connect();
  let broken = false;
  const inTransaction = async <T>(body: () => Promise<T>): Promise<T> => {
    await client.query(page.last ? BEGIN_WAITING_FOR_FLUSH : BEGIN_NOT_WAITING);
    try {
      const value = await body();
      await client.query('COMMIT');
      return value;
    } catch (error) {
      // A connection that cannot even roll back is not given back to the pool.
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw error;
    }
  };
  try {
    if (page.records.length > 0) {
      try {
        const copied = { rows: 0 };
        await inTransaction(async () => {
          const readId = await advance(client, page);
          await pipeline(Readable.from(copyChunks(page, readId, copied)), client.query(copyFrom(copySql(page.spec))));
        });
        return { inserted: copied.rows, updated: 0, unchanged: 0, revised: 0 };
      } catch (error) {
        if (!storedAlready(error) || broken) throw error;
      }
    }
    return await inTransaction(() => upsertWithCursor(client, page, pageRows(page.spec, page.records, page.accountId)));
  } finally {
    client.release(broken);
  }
}

/** Records encoded per COPY chunk: small enough that Postgres takes in one while the next is encoded. */
const COPY_CHUNK = 100;

/**
 * The page's COPY text, encoded a chunk at a time and handed over between
 * turns of the event loop, so that the server parses and indexes one chunk
 * while this process encodes the next (encoding is ~15% of a page's time).
 * Copies of one record are merged within a chunk (identical: once; different:
 * DuplicateRecordError), not across chunks: COPY then meets the key twice
 * (unique_violation) and the page goes the upsert way, whose pageRows does
 * the same over the whole page. `copied.rows` counts the rows sent.
 */
async function* copyChunks<R>(page: PageToStore<R>, readId: string, copied: { rows: number }): AsyncGenerator<string> {
  for (let i = 0; i < page.records.length; i += COPY_CHUNK) {
    if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const rows = pageRows(page.spec, page.records.slice(i, i + COPY_CHUNK), page.accountId, readId);
    copied.rows += rows.values.length;
    yield rows.copyText;
  }
}

const BEGIN_WAITING_FOR_FLUSH = 'BEGIN; SET LOCAL synchronous_commit = on';
const BEGIN_NOT_WAITING = 'BEGIN; SET LOCAL synchronous_commit = off';

/** Advances the window's cursor (the fast way's first step); the read the page belongs to. */
async function advance<R>(client: pg.PoolClient, page: PageToStore<R>): Promise<string> {
  const result = await client.query<{ read_id: string }>({
    name: 'store-page-advance',
    text: ADVANCE_SQL,
    values: [page.windowId, page.nextCursor, page.records.length, page.last, page.fromCursor, endedAfterFull(page)],
  });
  if (result.rowCount !== 1) throw new WindowConflictError(page.windowId);
  return result.rows[0]!.read_id;
}

async function upsertWithCursor<R>(client: pg.PoolClient, page: PageToStore<R>, rows: PageRows): Promise<UpsertStats> {
  const payload = toPayload(page.spec, rows);
  const result = await client.query<{
    advanced: number;
    inserted: number;
    written: number;
    revised: number;
    clash: string | null;
  }>({
    // Prepared once per connection and table: planning this long statement was about a seventh
    // of a re-read page's time (EXPLAIN ANALYZE, 500 stored rows).
    name: `store-page-upsert-${page.spec.table}`,
    text: storePageSql(page.spec),
    values: [
      page.windowId,
      page.nextCursor,
      page.records.length,
      page.last,
      page.fromCursor,
      endedAfterFull(page),
      payload.json,
    ],
  });
  const row = result.rows[0]!;
  if (row.advanced !== 1) throw new WindowConflictError(page.windowId);
  if (row.clash !== null) {
    // Nothing was written; the caller's rollback undoes the cursor's advance too.
    const fields = page.spec.key.filter((k) => k !== 'account_id');
    throw new DuplicateRecordError(page.spec.table, fields, row.clash, 'read');
  }
  return {
    inserted: row.inserted,
    updated: row.written - row.inserted,
    unchanged: payload.rows - row.written,
    revised: row.revised,
  };
}

/**
 * COPY met a key that is stored (unique_violation), or another worker writing
 * the same keys at the same moment (deadlock_detected): the upsert takes over.
 */
function storedAlready(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === '40P01';
}

const endedAfterFull = <R>(page: PageToStore<R>): boolean => page.last && (page.endedAfterFullPage ?? false);
