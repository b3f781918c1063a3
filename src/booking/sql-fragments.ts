/**
 * SQL shared by the reports. Times are formatted by Postgres, which keeps the stream free of
 * Date objects and gives exactly the same text on every run. The runner sets the session's
 * TimeZone to the report's zone, so `localTime` is the accountant's wall clock with its offset.
 */

/** ISO 8601 in UTC with milliseconds, e.g. 2026-01-31T23:30:00.000Z. */
export function utcTime(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** ISO 8601 in the session zone with its offset, e.g. 2026-02-01T00:30:00.000+01:00. */
export function localTime(column: string): string {
  return `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MSTZH:TZM')`;
}

/** Unix milliseconds, as the exchange sent them. */
export function unixMs(column: string): string {
  return `(extract(epoch from ${column}) * 1000)::bigint::text`;
}

/**
 * The value of an enum column, or, when ingestion stored `unknown` for a value the spec does not
 * list, the original value from the raw record.
 */
export function enumOrRaw(column: string, rawField: string): string {
  return `CASE WHEN ${column}::text = 'unknown' THEN coalesce(raw->>'${rawField}', 'unknown') ELSE ${column}::text END`;
}

/** Ingestion's per-row flags (fields whose value the spec does not list) as one cell, '' when none. */
export function unmappedCell(column = 'unmapped'): string {
  return `array_to_string(coalesce(${column}, '{}'), '|')`;
}

/** The manifest flag of a row that ingestion flagged, null otherwise. */
export function unmappedFlag(column = 'unmapped'): string {
  return `CASE WHEN cardinality(coalesce(${column}, '{}')) > 0 THEN 'unmapped=' || array_to_string(${column}, '|') END`;
}

/** Text ordering independent of the database's collation, so files are identical everywhere. */
export function byteOrder(column: string): string {
  return `${column} COLLATE "C"`;
}
