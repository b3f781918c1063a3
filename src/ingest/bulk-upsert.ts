import type { TableSpec } from '../streams/kit/table-spec.ts';
import { DuplicateRecordError } from './duplicate-record-error.ts';

export interface UpsertStats {
  /** Rows that did not exist before. */
  inserted: number;
  /** Existing rows whose content changed (e.g. a transfer that settled). */
  updated: number;
  /** Rows read again with nothing changed: their content left untouched. */
  unchanged: number;
  /**
   * Of the updated rows, those whose `raw` the exchange changed since an earlier read: each one's
   * old `raw` is kept in record_revision (the rest changed only in how ledgerline maps them).
   */
  revised: number;
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
 * every column, `raw` as its JSON text. `lastField`, when given, ends every
 * COPY line as one more column (the page store's read id).
 */
export function pageRows<R>(
  spec: TableSpec<R>,
  records: readonly R[],
  accountId: string,
  lastField?: string,
): PageRows {
  const lineEnd = lastField === undefined ? '\n' : `\t${copyEscape(lastField)}\n`;
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
    line += lineEnd;
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

/** The page's rows as one JSON text for the page store's upsert. */
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
