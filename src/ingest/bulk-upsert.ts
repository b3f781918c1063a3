import type pg from 'pg';

import type { TableSpec } from '../streams/kit/table-spec.ts';
import { DuplicateRecordError } from './duplicate-record-error.ts';

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

export interface PageRows {
  /** Each distinct row's values, in `columns` order. */
  values: unknown[][];
  /** The same rows in COPY's text format, one line each. */
  copyText: string;
}

/**
 * The page's rows, once per key. A key repeated within one page is stored
 * once when both copies are identical (Postgres refuses to update one row twice
 * in one statement, and COPY would hit the primary key); two different records
 * under one key are a DuplicateRecordError, since keeping either would
 * silently drop the other. Two copies are identical when their COPY lines are:
 * every column, `raw` as its JSON text.
 */
export function pageRows<R>(spec: TableSpec<R>, records: readonly R[], accountId: string): PageRows {
  const { encoders, keyIndexes, keyNames } = copyPlan(spec);
  const byKey = new Map<string, { values: unknown[]; line: string }>();
  for (const record of records) {
    const values = spec.toRow(record, accountId);
    const key =
      keyIndexes.length === 1
        ? String(values[keyIndexes[0]!])
        : keyIndexes.map((i) => `${keyNames[i]}=${String(values[i])}`).join(', ');
    let line = encoders[0]!(values[0]);
    for (let i = 1; i < encoders.length; i++) line += `\t${encoders[i]!(values[i])}`;
    line += '\n';
    const earlier = byKey.get(key);
    if (earlier !== undefined && earlier.line !== line) {
      throw new DuplicateRecordError(
        spec.table,
        keyIndexes.map((i) => keyNames[i]!),
        keyIndexes.map((i) => `${keyNames[i]}=${String(values[i])}`).join(', '),
      );
    }
    byKey.set(key, { values, line });
  }
  let copyText = '';
  const values: unknown[][] = [];
  for (const row of byKey.values()) {
    values.push(row.values);
    copyText += row.line;
  }
  return { values, copyText };
}

interface CopyPlan {
  /** Per column: the value as one field of COPY's text format. */
  encoders: ((value: unknown) => string)[];
  /** The key's columns other than account_id (the same for every row of a page). */
  keyIndexes: number[];
  keyNames: string[];
}

const copyPlans = new WeakMap<TableSpec<unknown>, CopyPlan>();

function copyPlan<R>(spec: TableSpec<R>): CopyPlan {
  const cached = copyPlans.get(spec);
  if (cached) return cached;
  const keyNames = spec.columns.map((c) => c.name);
  // account_id is the same for every row of a page: the key the exchange repeated is the rest.
  const keyIndexes = spec.key.map((k) => keyNames.indexOf(k)).filter((i) => keyNames[i] !== 'account_id');
  const encoders = spec.columns.map((column) => {
    const literal = column.copyLiteral;
    if (literal) return (value: unknown) => copyEscape(literal(value));
    return (value: unknown) =>
      value === null || value === undefined
        ? '\\N'
        : copyEscape(typeof value === 'string' ? value : JSON.stringify(value));
  });
  const plan = { encoders, keyIndexes, keyNames };
  copyPlans.set(spec, plan);
  return plan;
}

/** The page's rows as one JSON text for `upsertSql`. */
export function toPayload<R>(spec: TableSpec<R>, rows: PageRows): PagePayload {
  const names = spec.columns.map((c) => c.name);
  const texts = rows.values.map((values) => {
    const object: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) object[names[i]!] = values[i];
    return JSON.stringify(object);
  });
  return { json: `[${texts.join(',')}]`, rows: rows.values.length };
}

// COPY's text format: a backslash, tab, newline or carriage return inside a value is escaped.
const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function copyEscape(text: string): string {
  return COPY_SPECIAL.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : text;
}

export async function upsertPage<R>(
  db: pg.ClientBase,
  spec: TableSpec<R>,
  records: readonly R[],
  accountId: string,
): Promise<UpsertStats> {
  if (records.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
  const payload = toPayload(spec, pageRows(spec, records, accountId));
  const result = await db.query<{ inserted: boolean }>(upsertSql(spec), [payload.json]);
  const inserted = result.rows.filter((row) => row.inserted).length;
  const updated = result.rows.length - inserted;
  return { inserted, updated, unchanged: payload.rows - result.rows.length };
}
