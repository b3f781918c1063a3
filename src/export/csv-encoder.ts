import { stringify } from 'csv-stringify/sync';

/**
 * CSV text of one row, exactly as csv-stringify writes it (comma, `"` quoting, `\n` between
 * records). csv-stringify costs several microseconds per row, more than Postgres needs to produce
 * it, which would make an export of a million rows far slower than `psql \copy`. Almost every
 * cell of a ledger is plain (no comma, quote or line break): a row of plain cells is written as
 * csv-stringify would write it, cells joined by commas, and any row with a cell that needs
 * quoting goes through csv-stringify itself. A test checks both paths agree on random rows.
 */
// csv-stringify quotes a cell with `\n` but not one with a lone `\r`, which readers take as a line break.
const OPTIONS = { record_delimiter: 'unix', eof: true, quoted_match: /\r/ } as const;
const NEEDS_QUOTING = /[",\r\n]/;

export function encodeCsvRow(cells: readonly string[]): string {
  for (let i = 0; i < cells.length; i++) {
    if (NEEDS_QUOTING.test(cells[i]!)) return stringify([cells as string[]], OPTIONS);
  }
  return `${cells.join(',')}\n`;
}

/** The header line, always through csv-stringify. */
export function encodeCsvHeader(headers: readonly string[]): string {
  return stringify([headers as string[]], OPTIONS);
}
