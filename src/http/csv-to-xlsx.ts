import { createReadStream } from 'node:fs';
import type { Writable } from 'node:stream';

import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';

import type { CellKind } from '../export/neutralize.ts';

// Excel keeps numbers as doubles: 15 significant digits are exact, a 16th may not be.
const EXACT_DIGITS = 15;
const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * A decimal cell as a number when a double holds it exactly (so it can be summed), else as the
 * exact text: Excel must never round an amount silently.
 */
export function xlsxCell(value: string, kind: CellKind | undefined): string | number {
  if (kind !== 'decimal' || !PLAIN_DECIMAL.test(value)) return value;
  const [whole, fraction = ''] = value.replace('-', '').split('.') as [string, string?];
  const significant = (whole + fraction.replace(/0+$/, '')).replace(/^0+/, '');
  return significant.length <= EXACT_DIGITS ? Number(value) : value;
}

/**
 * The .xlsx twin of a written CSV, streamed (no whole file in memory): the same rows, every text
 * column (ids included) as text, so Excel neither rounds a long id nor reads a date into its own
 * format; decimal columns as numbers when exact (xlsxCell). Cells are as in the CSV, formula
 * guard included (a leading apostrophe on text that starts like a formula).
 */
export async function csvToXlsx(csvPath: string, kinds: readonly CellKind[], sink: Writable): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: sink, useSharedStrings: false, useStyles: false });
  const sheet = workbook.addWorksheet('report');
  const records = createReadStream(csvPath).pipe(parse({ bom: true, relax_column_count: true }));
  let header = true;
  for await (const record of records as AsyncIterable<string[]>) {
    sheet.addRow(header ? record : record.map((value, k) => xlsxCell(value, kinds[k]))).commit();
    header = false;
  }
  sheet.commit();
  await workbook.commit();
}
