import type pg from 'pg';

import { DuplicateRecordError } from './duplicate-record-error.ts';
import type { TableSpec } from './tables/table-spec.ts';

export interface UpsertStats {
  /** Rows that did not exist before. */
  inserted: number;
  /** Existing rows whose content changed (e.g. a transfer that settled). */
  updated: number;
  /** Rows read again with nothing changed: left untouched. */
  unchanged: number;
}

const sqlCache = new WeakMap<TableSpec<unknown>, string>();

/**
 * One statement for a whole page. The page travels as ONE json parameter (an
 * array of row objects) that jsonb_to_recordset expands into typed rows: each
 * value goes through its column type's input function, so numeric strings
 * stay exact, and the parameter count is fixed whatever the page size.
 * An existing row is rewritten only when what the exchange sent differs
 * (`raw` compared as jsonb: exact strings, key order ignored), so re-reading
 * a window changes nothing and keeps last_changed_at meaningful.
 *
 * `gate`, when given, is a condition every inserted row must satisfy (the
 * page-store statement uses it to write rows only if the cursor advanced).
 */
export function upsertSql<R>(spec: TableSpec<R>, param = 1, gate?: string): string {
  const key = gate ? undefined : spec;
  const cached = key && sqlCache.get(key);
  if (cached) return cached;
  const names = spec.columns.map((c) => c.name);
  const record = spec.columns.map((c) => `${c.name} ${c.paramType}`).join(', ');
  const selects = spec.columns.map((c) => c.select ?? `u.${c.name}`).join(', ');
  const updates = names
    .filter((name) => !spec.key.includes(name))
    .map((name) => `${name} = EXCLUDED.${name}`)
    .join(', ');
  const sql = `INSERT INTO ${spec.table} AS t (${names.join(', ')})
SELECT ${selects} FROM jsonb_to_recordset($${param}::jsonb) AS u(${record})${gate ? ` WHERE ${gate}` : ''}
ON CONFLICT (${spec.key.join(', ')}) DO UPDATE SET ${updates}, last_changed_at = now()
WHERE (t.raw IS DISTINCT FROM EXCLUDED.raw OR t.unmapped IS DISTINCT FROM EXCLUDED.unmapped)${spec.newerOnly ? ` AND ${spec.newerOnly}` : ''}
RETURNING (xmax = 0) AS inserted`;
  if (key) sqlCache.set(key, sql);
  return sql;
}

export interface PagePayload {
  /** The page as a JSON array of row objects, keyed by column name. */
  json: string;
  /** Rows after removing repeated keys. */
  rows: number;
}

/**
 * The page's rows as one JSON text. A key repeated within one page is stored
 * once when both copies are identical (Postgres refuses to update one row twice
 * in one statement); two different records under one key are a
 * DuplicateRecordError, since keeping either would silently drop the other.
 */
export function toPayload<R>(spec: TableSpec<R>, records: readonly R[], accountId: string): PagePayload {
  const names = spec.columns.map((c) => c.name);
  // account_id is the same for every row of a page: the key the exchange repeated is the rest.
  const keyIndexes = spec.key.map((k) => names.indexOf(k)).filter((i) => names[i] !== 'account_id');
  const byKey = new Map<string, { object: Record<string, unknown>; text: string }>();
  for (const record of records) {
    const row = spec.toRow(record, accountId);
    const object: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) object[names[i]!] = row[i];
    const key = keyIndexes.map((i) => `${names[i]}=${String(row[i])}`).join(', ');
    const text = JSON.stringify(object);
    const earlier = byKey.get(key);
    if (earlier !== undefined && earlier.text !== text) {
      throw new DuplicateRecordError(
        spec.table,
        keyIndexes.map((i) => names[i]!),
        key,
      );
    }
    byKey.set(key, { object, text });
  }
  return { json: `[${[...byKey.values()].map((row) => row.text).join(',')}]`, rows: byKey.size };
}

export async function upsertPage<R>(
  db: pg.ClientBase,
  spec: TableSpec<R>,
  records: readonly R[],
  accountId: string,
): Promise<UpsertStats> {
  if (records.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
  const payload = toPayload(spec, records, accountId);
  const result = await db.query<{ inserted: boolean }>(upsertSql(spec), [payload.json]);
  const inserted = result.rows.filter((row) => row.inserted).length;
  const updated = result.rows.length - inserted;
  return { inserted, updated, unchanged: payload.rows - result.rows.length };
}
