import type pg from 'pg';

import { toMs } from '../../db/sql-time.ts';
import { streamDefinition } from '../../streams/registry.ts';
import type { SyncWindowRow } from './window-store.ts';

/**
 * Where a window's current read got to: the instant of the oldest record of the window stored or
 * met by that read (`read_id`, page-store-sql.ts). Pages run newest to oldest by the stream's
 * paging time (paging-strategy.ts), and a page's rows commit with the cursor, so this is the last
 * record the read took before the cursor it resumes from. A resumed read judges an empty page
 * against it (page-window.ts, EndCheck); undefined when the read stored nothing in the window.
 */
export async function readReached(pool: pg.Pool, window: SyncWindowRow): Promise<number | undefined> {
  const definition = streamDefinition(window.stream);
  const time = definition.columns[definition.paging.time]?.column;
  // A declaration whose paging time is not one of its columns: not judged (stream-declarations test holds it).
  if (time === undefined) return undefined;
  const scope = definition.scopeColumn ? `AND t.${definition.scopeColumn.name}::text = w.scope` : '';
  const result = await pool.query<{ at: string | null }>({
    text: `SELECT ${toMs(`min(t.${time})`)} AS at
             FROM sync_window w
             JOIN ${definition.table.table} t
               ON t.account_id = w.account_id AND t.read_id = w.read_id ${scope}
              AND t.${time} >= w.window_start AND t.${time} < w.window_end
            WHERE w.id = $1`,
    values: [window.id],
  });
  const at = result.rows[0]?.at;
  return at == null ? undefined : Number(at);
}
