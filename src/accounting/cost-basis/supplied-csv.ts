import { parse } from 'csv-parse/sync';

import { ValidationError } from '../../errors/index.ts';
import { type RowProblem, SuppliedRowsError } from './supplied-rows-error.ts';

/**
 * The bounds of a supplied-figures file: an accountant's list, not a ledger. 100,000 rows of the
 * longest plain row (about 120 bytes) plus notes fit in 16 MiB; a note is a sentence, not a
 * document. Each bound is a typed error naming it, before anything is read further or written.
 */
export const SUPPLIED_LIMITS = Object.freeze({
  fileBytes: 16 * 1024 * 1024,
  cellBytes: 1000,
  rows: 100_000,
});

export const FILE_LIMIT_WORDS = `${SUPPLIED_LIMITS.fileBytes.toLocaleString('en-GB')} bytes (16 MiB)`;

/** One data row of a supplied-figures file: its line number and its cells by column name. */
export interface SuppliedCsvRow {
  readonly line: number;
  /** The cell of a column ('' for an optional column the header lacks). */
  cell(name: string): string;
  /** `line <n> <name>`: how an error names the row and the field. */
  field(name: string): string;
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const tooLarge = (bytes: number) =>
  new ValidationError('file', `must be at most ${FILE_LIMIT_WORDS}`, `${bytes.toLocaleString('en-GB')} bytes`);

const nulError = (line: number) =>
  new ValidationError(`line ${line}`, 'must not contain a NUL byte (the file is binary or damaged: save it as CSV)');

/** The file's bytes as text, or the typed error of a file too large, holding a NUL byte, or not UTF-8. */
export function suppliedText(bytes: Uint8Array): string {
  if (bytes.byteLength > SUPPLIED_LIMITS.fileBytes) throw tooLarge(bytes.byteLength);
  const nul = bytes.indexOf(0);
  if (nul >= 0) throw nulError(bytes.subarray(0, nul).filter((b) => b === 0x0a).length + 1);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ValidationError('file', 'must be UTF-8 text (save it as "CSV UTF-8")');
  }
}

/**
 * The rows of an owner's CSV file of supplied figures (`cost-basis import`, `proceeds import`, the
 * page's uploads and forms): within SUPPLIED_LIMITS, header required, any order, names
 * case-insensitive, only `columns`, every `required` one present, at least one row, each with as
 * many cells as the header and no control character. Each row is then read by `read`, in file
 * order; every bad row is one message (the first rule it breaks) and, if any, the whole file is a
 * SuppliedRowsError: nothing is written. A file that breaks a rule of its own (size, encoding,
 * header) is a one-line typed error naming the rule.
 */
export function readSuppliedCsv<T>(
  text: string,
  columns: readonly string[],
  required: readonly string[],
  read: (row: SuppliedCsvRow) => T,
): T[] {
  if (text.length > SUPPLIED_LIMITS.fileBytes || Buffer.byteLength(text, 'utf8') > SUPPLIED_LIMITS.fileBytes) {
    throw tooLarge(Buffer.byteLength(text, 'utf8'));
  }
  const nul = text.indexOf('\u0000');
  if (nul >= 0) throw nulError(text.slice(0, nul).split('\n').length);
  // The line each record ends on: a quoted cell may span lines, and blank lines are skipped.
  const lines: number[] = [];
  let records: string[][];
  try {
    records = parse(text, {
      bom: true,
      trim: true,
      skip_empty_lines: true,
      relax_column_count: true,
      on_record: (record: string[], context) => {
        lines.push(context.lines);
        return record;
      },
    });
  } catch (error) {
    throw new ValidationError('file', `is not CSV: ${(error as Error).message.split('\n')[0]}`);
  }
  const [header, ...body] = records;
  if (header === undefined) throw new ValidationError('file', 'must have a header line and rows');
  const names = header.map((name) => name.trim().toLowerCase());
  for (const name of names) {
    if (!columns.includes(name))
      throw new ValidationError('header', `unknown column; columns are ${columns.join(', ')}`, name.slice(0, 40));
  }
  for (const name of required) {
    if (!names.includes(name)) throw new ValidationError('header', `must have a ${name} column`);
  }
  if (body.length === 0) throw new ValidationError('file', 'must have at least one row');
  if (body.length > SUPPLIED_LIMITS.rows) {
    throw new ValidationError(
      'file',
      `must have at most ${SUPPLIED_LIMITS.rows.toLocaleString('en-GB')} rows`,
      body.length,
    );
  }
  const problems: RowProblem[] = [];
  const out: T[] = [];
  for (const [i, cells] of body.entries()) {
    const line = lines[i + 1]!;
    try {
      out.push(read(checkedRow(line, names, cells)));
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      problems.push({ line, field: error.field ?? `line ${line}`, message: error.message });
    }
  }
  if (problems.length > 0) throw new SuppliedRowsError(problems);
  return out;
}

function checkedRow(line: number, names: readonly string[], cells: readonly string[]): SuppliedCsvRow {
  if (cells.length !== names.length) {
    throw new ValidationError(`line ${line}`, `must have ${names.length} cells like the header`, cells.length);
  }
  cells.forEach((cell, i) => {
    const field = `line ${line} ${names[i]}`;
    const bytes = Buffer.byteLength(cell, 'utf8');
    if (bytes > SUPPLIED_LIMITS.cellBytes) {
      throw new ValidationError(field, `must be at most ${SUPPLIED_LIMITS.cellBytes} bytes`, `${bytes} bytes`);
    }
    if (CONTROL.test(cell)) {
      throw new ValidationError(field, 'must not contain control characters (line breaks, tabs)', cell.slice(0, 40));
    }
  });
  return {
    line,
    cell: (name) => cells[names.indexOf(name)] ?? '',
    field: (name) => `line ${line} ${name}`,
  };
}
