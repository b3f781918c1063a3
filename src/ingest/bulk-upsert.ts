import type pg from 'pg';
import type { TableSpec } from './tables/table-spec.ts';

export interface UpsertStats {
  /** Rows that did not exist before. */
  inserted: number;
  /** Existing rows whose content changed (e.g. a transfer that settled). */
  updated: number;
  /** Rows read again with nothing changed: left untouched. */
  unchanged: number;
}

const sqlCache = new WeakMap<TableSpec<never>, string>();

/**
 * One statement for a whole page: every column travels as one typed array and
 * is unnested into rows, so the parameter count is fixed whatever the page
 * size. An existing row is rewritten only when what the exchange sent differs
 * (`raw` compared as jsonb: exact strings, key order ignored), so re-reading
 * a window changes nothing and keeps last_changed_at meaningful.
 */
export function upsertSql<R>(spec: TableSpec<R>): string {
  const cached = sqlCache.get(spec as TableSpec<never>);
  if (cached) return cached;
  const names = spec.columns.map((c) => c.name);
  const params = spec.columns.map((c, i) => `$${i + 1}::${c.paramType}[]`).join(', ');
  const selects = spec.columns.map((c) => c.select ?? `u.${c.name}`).join(', ');
  const updates = names
    .filter((name) => !spec.key.includes(name))
    .map((name) => `${name} = EXCLUDED.${name}`)
    .join(', ');
  const sql = `INSERT INTO ${spec.table} AS t (${names.join(', ')})
SELECT ${selects} FROM unnest(${params}) AS u(${names.join(', ')})
ON CONFLICT (${spec.key.join(', ')}) DO UPDATE SET ${updates}, last_changed_at = now()
WHERE t.raw IS DISTINCT FROM EXCLUDED.raw OR t.unmapped IS DISTINCT FROM EXCLUDED.unmapped
RETURNING (xmax = 0) AS inserted`;
  sqlCache.set(spec as TableSpec<never>, sql);
  return sql;
}

/**
 * Column arrays for a page. A key repeated within one page keeps its last
 * occurrence: Postgres refuses to update one row twice in one statement.
 */
export function toColumns<R>(spec: TableSpec<R>, records: readonly R[], accountId: string): unknown[][] {
  const keyIndexes = spec.key.map((k) => spec.columns.findIndex((c) => c.name === k));
  const byKey = new Map<string, unknown[]>();
  for (const record of records) {
    const row = spec.toRow(record, accountId);
    byKey.set(JSON.stringify(keyIndexes.map((i) => row[i])), row);
  }
  const columns: unknown[][] = spec.columns.map(() => []);
  for (const row of byKey.values()) row.forEach((value, i) => columns[i]!.push(value));
  return columns;
}

export async function upsertPage<R>(
  db: pg.ClientBase,
  spec: TableSpec<R>,
  records: readonly R[],
  accountId: string,
): Promise<UpsertStats> {
  if (records.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
  const columns = toColumns(spec, records, accountId);
  const result = await db.query<{ inserted: boolean }>(upsertSql(spec), columns);
  const inserted = result.rows.filter((row) => row.inserted).length;
  const updated = result.rows.length - inserted;
  return { inserted, updated, unchanged: columns[0]!.length - result.rows.length };
}
