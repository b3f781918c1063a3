import type pg from 'pg';

import { toMs } from '../../db/sql-time.ts';
import type { ResumedRead } from '../../streams/kit/page-window.ts';
import { streamDefinition } from '../../streams/registry.ts';
import type { SyncWindowRow } from './window-store.ts';

/**
 * What a window's current read left behind for the run that resumes it from its stored cursor:
 * the size of the last page it stored (`sync_window.last_page_rows`, written with the cursor) and
 * the instant of the oldest record of the window stored or met by that read (`read_id`,
 * page-store-sql.ts). Pages run newest to oldest by the stream's paging time (paging-strategy.ts)
 * and a page's rows commit with its cursor, so that record is the last one the read took. An empty
 * page answered now is judged by them as it would have been in one run (page-window.ts, EndCheck).
 */
export async function resumedRead(pool: pg.Pool, window: SyncWindowRow): Promise<ResumedRead> {
  const definition = streamDefinition(window.stream);
  const time = definition.columns[definition.paging.time]?.column;
  const scope = definition.scopeColumn ? `AND t.${definition.scopeColumn.name}::text = w.scope` : '';
  // A paging time that is not a column (the stream-declarations test forbids it): nothing to probe from.
  const reached =
    time === undefined
      ? 'NULL::text'
      : `(SELECT ${toMs(`min(t.${time})`)} FROM ${definition.table.table} t
           WHERE t.account_id = w.account_id AND t.read_id = w.read_id ${scope}
             AND t.${time} >= w.window_start AND t.${time} < w.window_end)`;
  const result = await pool.query<{ rows: number | null; at: string | null }>({
    text: `SELECT w.last_page_rows AS rows, ${reached} AS at FROM sync_window w WHERE w.id = $1`,
    values: [window.id],
  });
  const row = result.rows[0];
  return { lastPageRows: row?.rows ?? null, reachedAt: row?.at == null ? undefined : Number(row.at) };
}
