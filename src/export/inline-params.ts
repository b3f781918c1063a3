import { ValidationError } from '../errors/index.ts';

/**
 * A query's `$n` parameters written into its text as SQL literals. `COPY (query) TO STDOUT` takes
 * no bind parameters, so the copy path must inline them. Each value becomes a quoted literal of the
 * very text node-postgres would have sent for it (an untyped parameter), so the query means the
 * same: `'2026-01-01T00:00:00.000Z'::timestamptz`, `'{"a","b"}'::text[]`. Quotes are doubled and a
 * value with a backslash is written as an E'' string, so no value can end its literal early.
 */
export function inlineParams(text: string, values: readonly unknown[]): string {
  // Single-quoted literals already in the text are kept as they are (a `$1` inside one is not a parameter).
  return text.replace(/'(?:[^']|'')*'|\$(\d+)(?!\d)/g, (match, n: string | undefined) => {
    if (n === undefined) return match;
    const index = Number(n) - 1;
    if (index < 0 || index >= values.length) throw new ValidationError('query', `has no value for $${n}`, n);
    return sqlLiteral(values[index]);
  });
}

export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  return quote(paramText(value));
}

/** The text node-postgres sends for a parameter (its prepareValue, for the types reports use). */
function paramText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return `{${value.map(arrayElement).join(',')}}`;
  throw new ValidationError('query parameter', 'must be a string, number, boolean, date or array', typeof value);
}

function arrayElement(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (Array.isArray(value)) return paramText(value);
  return `"${paramText(value).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

function quote(value: string): string {
  const doubled = value.replaceAll("'", "''");
  return value.includes('\\') ? ` E'${doubled.replaceAll('\\', '\\\\')}'` : `'${doubled}'`;
}
