import { z } from 'zod';

import {
  decimal,
  id,
  keepingRaw,
  listedValue,
  notingUnlisted,
  rawItem,
  timestamp,
} from '../../exchange/responses/fields.ts';
import { noteDrift } from '../../exchange/responses/shape-drift.ts';
import { enumValue } from './enum-value.ts';
import { type ColumnSpec, msToIso, RAW_COLUMN, type TableSpec, UNMAPPED_COLUMN } from './table-spec.ts';

/**
 * How a field of an exchange record is read: `id` a non-empty string kept
 * exactly, `decimal` an exact decimal string, `unix-ms` Unix milliseconds as
 * a string, `listed` a value the spec lists (any non-empty string is read;
 * an unlisted one is stored flagged), `optional-text` text the exchange may
 * send as null or leave out (stored as '', noted as `absent` drift; a core
 * one sent as anything but text refuses the page).
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
  /** Where the record's type makes the field required though it may be empty elsewhere (an order id on a trade leg). */
  readonly requiredFor?: RequiredFor;
}

/**
 * A field some report needs on records of certain types: absent, null or empty on a record whose
 * `type` field holds one of `values` (compared case-insensitively, as futureTaxType is), the page
 * is refused as a garbled one is, naming the field, the type and `because`. Stored empty it would
 * silently unpair what it pairs (issue 43: 1,142 spot records stored without their order id).
 */
export interface RequiredFor {
  /** The record's type field (a key of the same columns). */
  readonly type: string;
  readonly values: readonly string[];
  /** What the field is needed for, in the operator's words. */
  readonly because: string;
}

/** A stream's record, field by field, keyed by the record's (and the exchange's) name for it. */
export type Columns = Readonly<Record<string, Field>>;

/**
 * The record a stream's pages yield and its table stores: every value an
 * exact string, and `raw`, the item exactly as the exchange sent it. A
 * non-core field the answer left out (or sent garbled) is null (an
 * `optional-text` one ''), noted as drift.
 */
export type RecordOf<C extends Columns> = {
  -readonly [K in keyof C]: C[K] extends { core: true }
    ? string
    : C[K] extends { kind: 'optional-text' }
      ? string
      : string | null;
} & { raw: Record<string, unknown> };

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

/**
 * A non-core field, read tolerantly: absent, null or garbled it is null ('' for optional text)
 * and noted as drift under its name, never a refusal; `raw` keeps what was sent.
 */
function tolerantValue(name: string, field: Field, value: unknown): string | null {
  const none = field.kind === 'optional-text' ? '' : null;
  if (value === undefined || value === null) {
    noteDrift(name, 'absent');
    return none;
  }
  const read = KIND_SCHEMAS[field.kind].safeParse(value);
  if (read.success) return read.data;
  noteDrift(name, 'type');
  return none;
}

/**
 * A core `optional-text` field (an order id that pairs legs, a contract's symbol): left out or
 * null it is the exchange's own "none" ('', noted as `absent` drift), but any value other than
 * text refuses the page, naming it: stored as '' it would silently unpair what it pairs.
 */
function coreOptionalText(name: string): z.ZodType<string, unknown> {
  return z
    .string()
    .nullish()
    .transform((value) => {
      if (value === undefined || value === null) noteDrift(name, 'absent');
      return value ?? '';
    });
}

/**
 * The zod schema of one item of a stream's page, derived from its columns (`raw` added): a
 * core field missing or garbled refuses the page, naming it; a non-core one reads as null; a
 * field the columns do not declare is kept in `raw` and noted as `unlisted` drift.
 */
export function itemSchema<C extends Columns>(columns: C): z.ZodType<RecordOf<C>, unknown> {
  const shape: Record<string, z.ZodType> = {};
  const aliased: [string, Field][] = [];
  const known: string[] = [];
  for (const [name, field] of Object.entries(columns)) {
    const spellings = [name, ...(field.aliases ?? [])];
    known.push(...spellings);
    if (spellings.length > 1) {
      // Any one spelling will do: each is optional here, and the transform requires one.
      for (const spelling of spellings)
        shape[spelling] = field.core ? KIND_SCHEMAS[field.kind].optional() : z.unknown().optional();
      aliased.push([name, field]);
    } else if (field.core) {
      shape[name] = field.kind === 'optional-text' ? coreOptionalText(name) : KIND_SCHEMAS[field.kind];
    } else {
      shape[name] = z
        .unknown()
        .optional()
        .transform((value) => tolerantValue(name, field, value));
    }
  }
  shape.raw = rawItem;
  const object = z.object(shape);
  const aliasedResolved =
    aliased.length === 0
      ? object
      : object.transform((item, ctx) => {
          const out: Record<string, unknown> = { ...item };
          for (const [name, field] of aliased) {
            const spellings = [name, ...field.aliases!];
            const value = spellings.map((spelling) => item[spelling]).find((v) => v !== undefined && v !== null);
            for (const alias of field.aliases!) delete out[alias];
            if (!field.core) {
              out[name] = tolerantValue(name, field, value);
              continue;
            }
            if (value === undefined) {
              ctx.addIssue({ code: 'custom', path: [name], message: `${spellings.join(' or ')} is required` });
            }
            out[name] = value ?? '';
          }
          return out;
        });
  const resolved = requiringByType(columns, aliasedResolved);
  return notingUnlisted(known, keepingRaw(resolved)) as unknown as z.ZodType<RecordOf<C>, unknown>;
}

/** The columns' `requiredFor` rules, checked on the record read (one issue per field missing where its type needs it). */
function requiringByType(columns: Columns, schema: z.ZodType): z.ZodType {
  const rules = Object.entries(columns).filter((entry): entry is [string, Field & { requiredFor: RequiredFor }] =>
    Boolean(entry[1].requiredFor),
  );
  if (rules.length === 0) return schema;
  const wanted = rules.map(([name, field]) => ({
    name,
    rule: field.requiredFor,
    values: new Set(field.requiredFor.values.map((v) => v.toUpperCase())),
  }));
  return schema.superRefine((item, ctx) => {
    const record = item as Record<string, unknown>;
    for (const { name, rule, values } of wanted) {
      const type = record[rule.type];
      if (typeof type !== 'string' || !values.has(type.toUpperCase())) continue;
      const value = record[name];
      if (typeof value === 'string' && value !== '') continue;
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `${name} is required on a ${rule.type} ${type} record (${rule.because}), and was ${value === '' || value === undefined || value === null ? 'absent' : 'not text'}`,
      });
    }
  });
}

/** Every field whose presence some record types require, with the rule (the tests iterate them). */
export function requiredByType(columns: Columns): [string, RequiredFor][] {
  return Object.entries(columns).flatMap(([name, field]) =>
    field.requiredFor ? [[name, field.requiredFor] as [string, RequiredFor]] : [],
  );
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
        cellOf(name, field, (record as Record<string, string | null>)[name] ?? null, unmapped),
      );
      return [accountId, ...values, record.raw, unmapped.join(',')];
    },
  };
}

function cellOf(name: string, field: Field, value: string | null, unmapped: string[]): string | null {
  // A non-core field the answer left out: NULL (its absence is counted as drift, not flagged per row).
  if (value === null) return null;
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
