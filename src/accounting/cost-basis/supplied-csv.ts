import { parse } from 'csv-parse/sync';

import { ValidationError } from '../../errors/index.ts';

/** A file larger than this is refused: supplied figures are an accountant's list, not a ledger. */
const MAX_ROWS = 100_000;

/** One data row of a supplied-figures file: its line number and its cells by column name. */
export interface SuppliedCsvRow {
  readonly line: number;
  /** The cell of a column ('' for an optional column the header lacks). */
  cell(name: string): string;
  /** `line <n> <name>`: how an error names the row and the field. */
  field(name: string): string;
}

/**
 * The rows of an owner's CSV file of supplied figures (`cost-basis import`, `proceeds import`):
 * header required, any order, names case-insensitive, only `columns`, every `required` one present,
 * at least one row and at most MAX_ROWS, each with as many cells as the header; each row is then
 * read by `read`, in file order, so the first bad row is the one named. A file that breaks a rule
 * is a one-line typed error naming the line or the header and the rule.
 */
export function readSuppliedCsv<T>(
  text: string,
  columns: readonly string[],
  required: readonly string[],
  read: (row: SuppliedCsvRow) => T,
): T[] {
  let records: string[][];
  try {
    records = parse(text, { bom: true, trim: true, skip_empty_lines: true, relax_column_count: true }) as string[][];
  } catch (error) {
    throw new ValidationError('file', `is not CSV: ${(error as Error).message.split('\n')[0]}`);
  }
  const [header, ...body] = records;
  if (header === undefined) throw new ValidationError('file', 'must have a header line and rows');
  const names = header.map((name) => name.trim().toLowerCase());
  for (const name of names) {
    if (!columns.includes(name))
      throw new ValidationError('header', `unknown column; columns are ${columns.join(', ')}`, name);
  }
  for (const name of required) {
    if (!names.includes(name)) throw new ValidationError('header', `must have a ${name} column`);
  }
  if (body.length === 0) throw new ValidationError('file', 'must have at least one row');
  if (body.length > MAX_ROWS) throw new ValidationError('file', `must have at most ${MAX_ROWS} rows`, body.length);
  return body.map((cells, i) => {
    const line = i + 2;
    if (cells.length !== names.length) {
      throw new ValidationError(`line ${line}`, `must have ${names.length} cells like the header`, cells.length);
    }
    return read({
      line,
      cell: (name) => cells[names.indexOf(name)] ?? '',
      field: (name) => `line ${line} ${name}`,
    });
  });
}
