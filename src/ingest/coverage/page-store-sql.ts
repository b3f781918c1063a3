import type { TableSpec } from '../../streams/kit/table-spec.ts';

/*
 * One id, one record, in one read of a window; a later read's change kept, never silent.
 *
 * A window's READ is its paging from the first page (cursor null) to the page that ends it (an
 * empty page, or a short one on page-fill evidence: src/streams/kit/page-fill.ts). It may span many jobs: time slices, budget waits, retries, a crash and a resume from the
 * stored cursor. So what the read has met is kept in Postgres, not in a process's memory:
 *
 * - `sync_window.read_id` names the current read: a number drawn anew from its column's sequence
 *   by the statement that stores a page read from the first page (the cursor it continued from is
 *   null: a new window, or one reset by `--refetch`), kept by every page that continues from a
 *   stored cursor. A bigint, not a uuid: 8 bytes, partly absorbed by alignment padding
 *   (bench:ingest: +9 bytes of heap a spot row, a uuid +15) and a few characters of a COPY line.
 * - Every history row carries the `read_id` of the last read that stored or met it: COPY writes
 *   it with new rows, the upsert sets it on every row the page meets (changed or not, so that a
 *   record read unchanged early in a refetch still counts as met by that read).
 *
 * A page meeting a stored row then knows which case it is in:
 * - same read, same raw: the record repeated identically (as within one page): stored once;
 * - same read, other raw: two different records under one key in one read: the page is refused
 *   (DuplicateRecordError, the whole transaction rolled back, the first record kept);
 * - an earlier read (a lookback, a refetch, another window): an update. The row is rewritten and
 *   its old `raw` kept in record_revision, counted as `revised` for the window's read.
 *
 * New rows still go in by COPY: the read id is one more column of each line, so the common
 * case (a first backfill, the new end of a sync) costs what it cost before. The price is on
 * re-reads: every row met is written once more (its read id), so bench:ingest's "same pages
 * again" rate fell by about 40% (2 shared, busy cores); a nightly lookback re-reads a day or two.
 */

// $1 the window, $2 the next cursor, $3 the page's row count, $4 whether it is
// the last page, $5 the cursor it was read from, $6 whether that last page was an empty one after
// a full page (the read then does not vouch for itself: src/reconcile/read-marks.ts). Shared by
// both ways of storing.
// finished_at is kept until a read completes: a window re-read (--refetch) stays covered meanwhile.
// sync_window_read_id_seq is the sequence of read_id's BIGSERIAL (its migration).
export const ADVANCE_SQL = `UPDATE sync_window
     SET cursor = $2,
         pages = pages + 1,
         rows = rows + $3,
         last_page_rows = $3,
         failing_since = NULL,
         status = CASE WHEN $4::boolean THEN 'done'::sync_window_status ELSE 'running'::sync_window_status END,
         finished_at = CASE WHEN $4::boolean THEN now() ELSE finished_at END,
         last_error = CASE WHEN $4::boolean THEN NULL ELSE last_error END,
         ended_after_full_page = CASE WHEN $4::boolean THEN $6::boolean ELSE ended_after_full_page END,
         read_id = CASE WHEN $5::text IS NULL THEN nextval('sync_window_read_id_seq') ELSE read_id END,
         updated_at = now()
   WHERE id = $1 AND cursor IS NOT DISTINCT FROM $5::text AND status <> 'done'
  RETURNING id, read_id, stream, account_id`;

const storeSqlCache = new WeakMap<TableSpec<unknown>, string>();
const copySqlCache = new WeakMap<TableSpec<unknown>, string>();

/**
 * The careful way, for a page meeting stored keys: one statement that advances
 * the window's cursor only from the cursor this page continued from and, only if
 * it did (`page` joins `advanced`), finds a repeat of this read with other
 * content (`clash`: nothing is written, the caller throws), upserts the rows
 * (rewritten only when `raw` or `unmapped` changed, never set back by an older
 * copy), keeps the old `raw` of every revised row and marks the rows met
 * unchanged as met by this read. Every CTE sees the rows as they were before
 * the statement (`stored`); `stamped` leaves out the rows `written` touched, so
 * no row is updated twice. $7 is the page (one json array).
 */
export function storePageSql<R>(spec: TableSpec<R>): string {
  const cached = storeSqlCache.get(spec);
  if (cached) return cached;
  const names = spec.columns.map((c) => c.name);
  const record = spec.columns.map((c) => `${c.name} ${c.paramType}`).join(', ');
  const selects = spec.columns.map((c) => `${c.select ?? `u.${c.name}`} AS ${c.name}`).join(', ');
  const updates = names
    .filter((name) => !spec.key.includes(name))
    .map((name) => `${name} = EXCLUDED.${name}`)
    .join(', ');
  const sameKey = (a: string, b: string) => spec.key.map((k) => `${a}.${k} = ${b}.${k}`).join(' AND ');
  // The record's own key (the account is the window's): named in errors and in record_revision.
  const recordKey = spec.key.filter((k) => k !== 'account_id');
  const keyText = recordKey.map((k) => `'${k}=' || s.${k}`).join(` || ', ' || `);
  const keyJson = `jsonb_build_object(${recordKey.map((k) => `'${k}', w.${k}`).join(', ')})`;
  const sql = `WITH advanced AS (
  ${ADVANCE_SQL}
), page AS (
  SELECT ${selects}, a.read_id
    FROM jsonb_to_recordset($7::jsonb) AS u(${record}) CROSS JOIN advanced a
), stored AS (
  SELECT ${spec.key.map((k) => `t.${k}`).join(', ')}, t.raw, t.read_id
    FROM ${spec.table} t JOIN page p ON ${sameKey('t', 'p')}
), clash AS (
  SELECT ${keyText} AS key
    FROM stored s JOIN page p ON ${sameKey('s', 'p')}
   WHERE s.read_id = p.read_id AND s.raw IS DISTINCT FROM p.raw
   LIMIT 1
), written AS (
  INSERT INTO ${spec.table} AS t (${names.join(', ')}, read_id)
  SELECT ${names.join(', ')}, read_id FROM page WHERE NOT EXISTS (SELECT 1 FROM clash)
  ON CONFLICT (${spec.key.join(', ')}) DO UPDATE SET ${updates}, read_id = EXCLUDED.read_id, last_changed_at = now()
  WHERE (t.raw IS DISTINCT FROM EXCLUDED.raw OR t.unmapped IS DISTINCT FROM EXCLUDED.unmapped)${spec.newerOnly ? ` AND ${spec.newerOnly}` : ''}
  RETURNING ${spec.key.join(', ')}, (xmax = 0) AS inserted
), stamped AS (
  UPDATE ${spec.table} t SET read_id = p.read_id
    FROM stored s JOIN page p ON ${sameKey('s', 'p')}
   WHERE ${sameKey('t', 's')} AND s.read_id IS DISTINCT FROM p.read_id
     AND NOT EXISTS (SELECT 1 FROM clash)
     AND NOT EXISTS (SELECT 1 FROM written w WHERE ${sameKey('w', 's')})
), revised AS (
  INSERT INTO record_revision (account_id, stream, record_key, old_raw, new_raw, window_id, read_id)
  SELECT w.account_id, a.stream, ${keyJson}, s.raw, p.raw, a.id, a.read_id
    FROM written w JOIN stored s ON ${sameKey('w', 's')} JOIN page p ON ${sameKey('w', 'p')} CROSS JOIN advanced a
   WHERE NOT w.inserted AND s.raw IS DISTINCT FROM p.raw
  RETURNING 1
)
SELECT (SELECT count(*) FROM advanced)::int AS advanced,
       (SELECT count(*) FILTER (WHERE inserted) FROM written)::int AS inserted,
       (SELECT count(*) FROM written)::int AS written,
       (SELECT count(*) FROM revised)::int AS revised,
       (SELECT key FROM clash) AS clash`;
  storeSqlCache.set(spec, sql);
  return sql;
}

/** COPY of a page's new rows, each line ending with the read id. */
export function copySql<R>(spec: TableSpec<R>): string {
  const cached = copySqlCache.get(spec);
  if (cached) return cached;
  const sql = `COPY ${spec.table} (${spec.columns.map((c) => c.name).join(', ')}, read_id) FROM STDIN`;
  copySqlCache.set(spec, sql);
  return sql;
}
