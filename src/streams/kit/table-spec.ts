/**
 * How one history stream maps onto its table, for the bulk page upsert: a
 * page is sent as one JSON array of rows and expanded by json_to_recordset.
 */
export interface ColumnSpec {
  /** Column name in the table. */
  name: string;
  /** Postgres type the row's JSON value is read as (`numeric`, `text`, ...). */
  paramType: string;
  /**
   * SQL turning the expanded value `u.<name>` into the column value, when the
   * JSON cannot carry it directly (e.g. a text[] cell sent as one text).
   */
  select?: string;
  /**
   * The row's value as COPY's text format reads it into the column, when that
   * differs from the JSON value (`select`'s twin on the COPY path).
   */
  copyLiteral?: (value: unknown) => string;
}

export interface TableSpec<R> {
  table: string;
  /** The natural key (the table's primary key). */
  key: readonly string[];
  columns: readonly ColumnSpec[];
  /** One row's values, in `columns` order. */
  toRow(record: R, accountId: string): unknown[];
  /**
   * A condition an update must also meet (`t` the stored row, `EXCLUDED` the
   * page's): for records that change after the fact, an older copy read by
   * another window, committing later, must not overwrite a newer one.
   */
  newerOnly?: string;
}

/** text[] cells travel as one comma-joined text per row (field names hold no commas). */
export const UNMAPPED_COLUMN: ColumnSpec = {
  name: 'unmapped',
  paramType: 'text',
  select: "COALESCE(string_to_array(NULLIF(u.unmapped, ''), ','), '{}'::text[])",
  copyLiteral: (value) =>
    value === '' || value === null || value === undefined
      ? '{}'
      : `{${String(value)
          .split(',')
          .map((name) => `"${name.replace(/["\\]/g, '\\$&')}"`)
          .join(',')}}`,
};

export const RAW_COLUMN: ColumnSpec = { name: 'raw', paramType: 'jsonb' };

/** Unix ms as a decimal string (the exchange's form) to an ISO instant Postgres parses exactly. */
export function msToIso(ms: string): string {
  return new Date(Number(ms)).toISOString();
}
