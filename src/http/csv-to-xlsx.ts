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

/** Whether Excel's double holds this plain decimal exactly (at most 15 significant digits). Pure. */
export function exactInExcel(value: string): boolean {
  if (!PLAIN_DECIMAL.test(value)) return false;
  const [whole, fraction = ''] = value.replace('-', '').split('.') as [string, string?];
  const significant = (whole + fraction.replace(/0+$/, '')).replace(/^0+/, '');
  return significant.length <= EXACT_DIGITS;
}

/**
 * A cell as Excel should hold it, one type a column: a decimal column always as numbers (so SUM
 * counts every cell; an empty or non-numeric cell is left empty, never text), the nearest double
 * where Excel cannot hold the value exactly, whose exact text is then in the `_exact` column
 * beside it (see csvToXlsx); a time as a real date (sortable, filterable). Excel's dates have no
 * zone: the time is kept as written, its wall clock in the zone the column names (`_utc`;
 * `_local` in the export's zone, which the file name and the manifest state). Anything else, ids
 * included, as text.
 */
export function xlsxCell(value: string, kind: CellKind | undefined): string | number | Date | null {
  if (kind === 'decimal') return PLAIN_DECIMAL.test(value) ? Number(value) : null;
  const time = TIMESTAMP.exec(value);
  if (time) {
    const [y, mo, d, h, mi, s] = time.slice(1, 7).map(Number) as [number, number, number, number, number, number];
    const ms = Number((time[7] ?? '').padEnd(3, '0'));
    return new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
  }
  return value;
}

const rows = (csvPath: string) =>
  createReadStream(csvPath).pipe(parse({ bom: true, relax_column_count: true })) as AsyncIterable<string[]>;

interface ColumnFacts {
  /** Each column's width from its longest cell. */
  widths: number[];
  /** The decimal columns holding a value Excel cannot keep exactly: each gets an `_exact` text twin. */
  inexact: Set<number>;
}

/** What the layout needs from the whole file, in a first pass over it (streamed, nothing kept). */
async function columnFacts(csvPath: string, kinds: readonly CellKind[]): Promise<ColumnFacts> {
  const widths: number[] = [];
  const inexact = new Set<number>();
  let header = true;
  for await (const record of rows(csvPath)) {
    record.forEach((value, k) => {
      // A date shows as `yyyy-mm-dd hh:mm:ss` whatever its text was.
      const shown = TIMESTAMP.test(value) ? DATE_FORMAT.length : value.length;
      widths[k] = Math.max(widths[k] ?? 0, shown);
      if (!header && kinds[k] === 'decimal' && value !== '' && !exactInExcel(value)) inexact.add(k);
    });
    header = false;
  }
  return { widths: widths.map((w) => Math.min(Math.max(w + 2, MIN_WIDTH), MAX_WIDTH)), inexact };
}

/**
 * The .xlsx twin of a written CSV, streamed (no whole file in memory): the same rows, each column
 * one type (xlsxCell): ids and other text as text, so Excel neither rounds a long id nor reads a
 * string into its own format; amounts as numbers; times as dates. A decimal column holding any
 * value of more than 15 significant digits is followed by `<name>_exact`, that column's values as
 * exact text: the numbers sum, the text is what the books hold. Text cells are as in the CSV,
 * formula guard included (a leading apostrophe on text that starts like a formula). The header is
 * bold and frozen, with a filter on every column, and each column as wide as its longest cell.
 */
export async function csvToXlsx(csvPath: string, kinds: readonly CellKind[], sink: Writable): Promise<void> {
  const { widths, inexact } = await columnFacts(csvPath, kinds);
  const layout = widths.flatMap((width, k) => (inexact.has(k) ? [width, width] : [width]));
  // Loaded here, not at the top: exceljs is the heaviest import of the program (about 40% of any
  // command's start-up), and only this function needs it.
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: sink, useSharedStrings: false, useStyles: true });
  const sheet = workbook.addWorksheet('report', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = layout.map((width) => ({ width }));
  if (layout.length > 0) sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: layout.length } };
  let header = true;
  for await (const record of rows(csvPath)) {
    const cells = record.flatMap((value, k) => {
      const cell = header ? value : xlsxCell(value, kinds[k]);
      if (!inexact.has(k)) return [cell];
      return [cell, header ? `${value}_exact` : value];
    });
    const row = sheet.addRow(cells);
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
