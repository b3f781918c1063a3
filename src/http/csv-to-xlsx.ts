import { createReadStream } from 'node:fs';
import type { Writable } from 'node:stream';

import { parse } from 'csv-parse';

import type { CellKind } from '../export/neutralize.ts';

// Excel keeps numbers as doubles: 15 significant digits are exact, a 16th may not be.
const EXACT_DIGITS = 15;
const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;
/**
 * A time as the reports write it: ISO 8601 with Z or an offset (`time_utc`, `time_local`), or the
 * tax tools' `YYYY-MM-DD HH:MM:SS` (UTC). Only the wall-clock part is kept (see xlsxCell).
 */
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3})\d*)?(?:Z|[+-]\d{2}:\d{2})?$/;
export const DATE_FORMAT = 'yyyy-mm-dd hh:mm:ss';
/** Column widths, in characters: never narrower than a short header, never a screen wide. */
const MIN_WIDTH = 8;
const MAX_WIDTH = 60;

/**
 * A cell as Excel should hold it: a decimal as a number when a double holds it exactly (so it can
 * be summed), else as the exact text (Excel must never round an amount silently); a time as a real
 * date (sortable, filterable). Excel's dates have no zone: the time is kept as written, its wall
 * clock in the zone the column names (`_utc`; `_local` in the export's zone, which the file name
 * and the manifest state). Anything else as text.
 */
export function xlsxCell(value: string, kind: CellKind | undefined): string | number | Date {
  const time = kind === 'decimal' ? null : TIMESTAMP.exec(value);
  if (time) {
    const [y, mo, d, h, mi, s] = time.slice(1, 7).map(Number) as [number, number, number, number, number, number];
    const ms = Number((time[7] ?? '').padEnd(3, '0'));
    return new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
  }
  if (kind !== 'decimal' || !PLAIN_DECIMAL.test(value)) return value;
  const [whole, fraction = ''] = value.replace('-', '').split('.') as [string, string?];
  const significant = (whole + fraction.replace(/0+$/, '')).replace(/^0+/, '');
  return significant.length <= EXACT_DIGITS ? Number(value) : value;
}

const rows = (csvPath: string) =>
  createReadStream(csvPath).pipe(parse({ bom: true, relax_column_count: true })) as AsyncIterable<string[]>;

/** Each column's width from its longest cell (a first pass over the file: streamed, nothing kept). */
async function columnWidths(csvPath: string): Promise<number[]> {
  const widths: number[] = [];
  for await (const record of rows(csvPath)) {
    record.forEach((value, k) => {
      // A date shows as `yyyy-mm-dd hh:mm:ss` whatever its text was.
      const shown = TIMESTAMP.test(value) ? DATE_FORMAT.length : value.length;
      widths[k] = Math.max(widths[k] ?? 0, shown);
    });
  }
  return widths.map((w) => Math.min(Math.max(w + 2, MIN_WIDTH), MAX_WIDTH));
}

/**
 * The .xlsx twin of a written CSV, streamed (no whole file in memory): the same rows, every text
 * column (ids included) as text, so Excel neither rounds a long id nor reads a string into its
 * own format; decimal columns as numbers when exact and times as dates (xlsxCell). Cells are as in
 * the CSV, formula guard included (a leading apostrophe on text that starts like a formula). The
 * header is bold and frozen, with a filter on every column, and each column as wide as its
 * longest cell.
 */
export async function csvToXlsx(csvPath: string, kinds: readonly CellKind[], sink: Writable): Promise<void> {
  const widths = await columnWidths(csvPath);
  // Loaded here, not at the top: exceljs is the heaviest import of the program (about 40% of any
  // command's start-up), and only this function needs it.
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: sink, useSharedStrings: false, useStyles: true });
  const sheet = workbook.addWorksheet('report', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = widths.map((width) => ({ width }));
  if (widths.length > 0) sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: widths.length } };
  let header = true;
  for await (const record of rows(csvPath)) {
    const row = sheet.addRow(header ? record : record.map((value, k) => xlsxCell(value, kinds[k])));
    if (header) row.font = { bold: true };
    else
      row.eachCell((cell) => {
        if (cell.value instanceof Date) cell.numFmt = DATE_FORMAT;
      });
    row.commit();
    header = false;
  }
  sheet.commit();
  await workbook.commit();
}
