import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';

import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';

import type { CellKind } from '../../src/export/neutralize.ts';
import { csvToXlsx, exactInExcel } from '../../src/http/csv-to-xlsx.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'xlsx-types-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `csv`, converts it as the page does, and reads the workbook back as Excel would. */
async function roundTrip(csv: string, kinds: CellKind[]): Promise<ExcelJS.Worksheet> {
  const csvPath = path.join(dir, `${Math.random().toString(36).slice(2)}.csv`);
  writeFileSync(csvPath, csv);
  const xlsxPath = csvPath.replace(/\.csv$/, '.xlsx');
  const sink = createWriteStream(xlsxPath);
  await csvToXlsx(csvPath, kinds, sink);
  await finished(sink);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(xlsxPath);
  return workbook.worksheets[0]!;
}

/** Each column's header and the set of cell types below it (empty cells left out). */
function columnTypes(sheet: ExcelJS.Worksheet): Record<string, string[]> {
  const header = (sheet.getRow(1).values as unknown[]).slice(1) as string[];
  const types: Record<string, Set<string>> = Object.fromEntries(header.map((name) => [name, new Set<string>()]));
  for (let r = 2; r <= sheet.rowCount; r++) {
    header.forEach((name, k) => {
      const value = sheet.getRow(r).getCell(k + 1).value;
      if (value === null || value === undefined) return;
      types[name]!.add(value instanceof Date ? 'date' : typeof value);
    });
  }
  return Object.fromEntries(Object.entries(types).map(([name, set]) => [name, [...set].sort()]));
}

const CSV = [
  'record_id,coin,time_utc,amount,fee,balance',
  // An id of digits only, an amount of 19 significant digits, an amount Excel keeps exactly.
  '1234567890123456789,BTC,2026-01-05T10:00:00Z,2.500000000000000001,-0.0001,1.5',
  '0042,ETH,2026-01-06T11:30:00Z,12.25,,3',
  'spot:77,USDT,2026-01-07T00:00:00Z,-1000000.123456789,-0.5,',
].join('\n');
const KINDS: CellKind[] = ['text', 'text', 'text', 'decimal', 'decimal', 'decimal'];

describe('the .xlsx beside a CSV, read back as Excel reads it', () => {
  it('each column holds one type: ids text, times dates, amounts numbers (never text that SUM skips)', async () => {
    const sheet = await roundTrip(CSV, KINDS);
    expect(columnTypes(sheet)).toEqual({
      record_id: ['string'],
      coin: ['string'],
      time_utc: ['date'],
      amount: ['number'],
      // The column with a value Excel cannot hold exactly has its exact text beside it.
      amount_exact: ['string'],
      fee: ['number'],
      balance: ['number'],
    });
  });

  it('the numbers are the exact values where Excel keeps them, the nearest where not, with the exact text beside', async () => {
    const sheet = await roundTrip(CSV, KINDS);
    const header = (sheet.getRow(1).values as unknown[]).slice(1) as string[];
    const cell = (r: number, name: string) => sheet.getRow(r).getCell(header.indexOf(name) + 1).value;
    expect(header).toEqual(['record_id', 'coin', 'time_utc', 'amount', 'amount_exact', 'fee', 'balance']);
    expect(cell(2, 'record_id')).toBe('1234567890123456789');
    expect(cell(3, 'record_id')).toBe('0042');
    expect(cell(2, 'amount')).toBe(2.5);
    expect(cell(2, 'amount_exact')).toBe('2.500000000000000001');
    expect(cell(3, 'amount')).toBe(12.25);
    expect(cell(3, 'amount_exact')).toBe('12.25');
    expect(cell(4, 'amount')).toBe(-1000000.123456789);
    expect(cell(2, 'fee')).toBe(-0.0001);
    // An empty amount is an empty cell, not an empty text.
    expect(cell(3, 'fee')).toBeNull();
    expect(cell(4, 'balance')).toBeNull();
    expect(cell(2, 'time_utc')).toEqual(new Date('2026-01-05T10:00:00.000Z'));
  });

  it('a file whose amounts are all exact gets no _exact column', async () => {
    const sheet = await roundTrip('id,amount\n1,0.1\n2,123456789012345\n', ['text', 'decimal']);
    expect(columnTypes(sheet)).toEqual({ id: ['string'], amount: ['number'] });
  });

  it('15 significant digits are exact in Excel, 16 are not; zeros at either end do not count', () => {
    expect(exactInExcel('123456789012345')).toBe(true);
    expect(exactInExcel('1234567890123456')).toBe(false);
    expect(exactInExcel('0.000123456789012345000')).toBe(true);
    expect(exactInExcel('-12345678901234.5')).toBe(true);
    expect(exactInExcel('NaN')).toBe(false);
  });
});
