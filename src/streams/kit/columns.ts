import { z } from 'zod';

import { decimal, id, keepingRaw, listedValue, rawItem, timestamp } from '../../exchange/responses/fields.ts';
import { enumValue } from './enum-value.ts';
import { type ColumnSpec, msToIso, RAW_COLUMN, type TableSpec, UNMAPPED_COLUMN } from './table-spec.ts';

/**
 * How a field of an exchange record is read: `id` a non-empty string kept
 * exactly, `decimal` an exact decimal string, `unix-ms` Unix milliseconds as
 * a string, `listed` a value the spec lists (any non-empty string is read;
 * an unlisted one is stored flagged), `optional-text` text the exchange may
 * send as null or leave out (stored as '').
 */
export type FieldKind = 'id' | 'decimal' | 'unix-ms' | 'listed' | 'optional-text';

/** One field of a stream's record: the one place its exchange name, its check and its column are declared. */
export interface Field {
  readonly kind: FieldKind;
  /** Other names the exchange sends it under (the live exchange's `ctime` for the doc's `cTime`). */
  readonly aliases?: readonly string[];
  /** The table column it is stored in. */
  readonly column: string;
  /** The column's Postgres type: `text`, `numeric`, `timestamptz`, or the enum a listed value is stored as. */
  readonly pgType: string;
  /**
   * Identity, money, time or paging: a record without it is refused. The
   * others (descriptive fields) are the ones a tolerant reader may let go.
   */
  readonly core: boolean;
  /** For `listed`: the documented values. Stored as `unknown` (an enum column) or as sent (text), and flagged. */
  readonly values?: readonly string[];
}

/** A stream's record, field by field, keyed by the record's (and the exchange's) name for it. */
export type Columns = Readonly<Record<string, Field>>;

/**
 * The record a stream's pages yield and its table stores: every value an
 * exact string, and `raw`, the item exactly as the exchange sent it.
 */
export type RecordOf<C extends Columns> = { -readonly [K in keyof C]: string } & { raw: Record<string, unknown> };

const KIND_SCHEMAS: Record<FieldKind, z.ZodType<string, unknown>> = {
  id,
  decimal,
  'unix-ms': timestamp,
  listed: listedValue,
  'optional-text': z
    .string()
    .nullish()
    .transform((value) => value ?? ''),
};

/** The zod schema of one item of a stream's page, derived from its columns (`raw` added). */
export function itemSchema<C extends Columns>(columns: C): z.ZodType<RecordOf<C>, unknown> {
  const shape: Record<string, z.ZodType> = {};
  const aliased: [string, readonly string[]][] = [];
  for (const [name, field] of Object.entries(columns)) {
    const schema = KIND_SCHEMAS[field.kind];
    if (field.aliases === undefined || field.aliases.length === 0) {
      shape[name] = schema;
      continue;
    }
    // Any one spelling will do: each is optional here, and the transform requires one.
    for (const spelling of [name, ...field.aliases]) shape[spelling] = schema.optional();
    aliased.push([name, field.aliases]);
  }
  shape.raw = rawItem;
  const object = z.object(shape);
  if (aliased.length === 0) return keepingRaw(object) as unknown as z.ZodType<RecordOf<C>, unknown>;
  const resolved = object.transform((item, ctx) => {
    const out: Record<string, unknown> = { ...item };
    for (const [name, aliases] of aliased) {
      const value = [name, ...aliases].map((spelling) => item[spelling]).find((v) => v !== undefined);
      if (value === undefined) {
        ctx.addIssue({ code: 'custom', path: [name], message: `${[name, ...aliases].join(' or ')} is required` });
      }
      for (const alias of aliases) delete out[alias];
      out[name] = value ?? '';
    }
    return out;
  });
  return keepingRaw(resolved) as unknown as z.ZodType<RecordOf<C>, unknown>;
}

export interface TableOptions {
  table: string;
  /** The natural key (the table's primary key), by column name. */
  key: readonly string[];
  newerOnly?: string;
}

/**
 * The table spec of a stream, derived from its columns: `account_id`, one
 * column per field in declaration order, `raw` and `unmapped`.
 */
export function tableOf<C extends Columns>(columns: C, options: TableOptions): TableSpec<RecordOf<C>> {
  const fields = Object.entries(columns);
  const columnSpecs: ColumnSpec[] = [
    { name: 'account_id', paramType: 'uuid' },
    ...fields.map(([, field]) => ({ name: field.column, paramType: field.pgType })),
    RAW_COLUMN,
    UNMAPPED_COLUMN,
  ];
  return {
    ...options,
    columns: columnSpecs,
    toRow(record, accountId) {
      const unmapped: string[] = [];
      const values = fields.map(([name, field]) =>
        cellOf(name, field, (record as Record<string, string>)[name]!, unmapped),
      );
      return [accountId, ...values, record.raw, unmapped.join(',')];
    },
  };
}

function cellOf(name: string, field: Field, value: string, unmapped: string[]): string {
  if (field.kind === 'unix-ms') return msToIso(value);
  if (field.kind !== 'listed' || field.values === undefined) return value;
  // An enum column cannot hold an unlisted value: it becomes `unknown`. A text column keeps it as sent.
  if (field.pgType !== 'text') return enumValue(field.values, value, name, unmapped);
  if (!field.values.includes(value)) unmapped.push(name);
  return value;
}

/** The fields a record is refused without. */
export function coreFields(columns: Columns): string[] {
  return Object.entries(columns)
    .filter(([, field]) => field.core)
    .map(([name]) => name);
}
