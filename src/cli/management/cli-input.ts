import { readFile } from 'node:fs/promises';

import { ValidationError } from '../../errors/index.ts';
import type { OrderRef } from '../../management/action-input.ts';

/** A comma-separated option (`--perms read,spot_trade`); `none` is the empty list. */
export function parseList(option: string, value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === 'none') return [];
  const items = text.split(',').map((item) => item.trim());
  if (text === '' || items.some((item) => item === '')) {
    throw new ValidationError(option, 'must be a comma-separated list without empty entries, or none', value);
  }
  return items;
}

async function readText(option: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new ValidationError(
      option,
      `cannot read the file: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      file,
    );
  }
}

/** One value per line; blank lines and lines starting with # are skipped. */
export async function readLines(option: string, file: string): Promise<{ line: number; value: string }[]> {
  const text = await readText(option, file);
  const lines = text
    .split(/\r?\n/)
    .map((value, index) => ({ line: index + 1, value: value.trim() }))
    .filter(({ value }) => value !== '' && !value.startsWith('#'));
  if (lines.length === 0) throw new ValidationError(option, 'the file names nothing', file);
  return lines;
}

/** Orders of one symbol, one identifier per line. */
export async function readIdFile(
  option: '--order-ids' | '--client-oids',
  file: string,
  symbol: string,
): Promise<OrderRef[]> {
  const kind = option === '--order-ids' ? 'orderId' : 'clientOid';
  const lines = await readLines(option, file);
  for (const { line, value } of lines) {
    if (/[\s,]/.test(value)) throw new ValidationError(`${option} line ${line}`, `must hold one ${kind} only`, value);
  }
  return lines.map(({ value }) => ({ symbol, [kind]: value }));
}

const HEADERS = ['symbol', 'orderId', 'clientOid'];

/**
 * A CSV of orders over several symbols: a header naming `symbol` and
 * `orderId` and/or `clientOid`, then one order per row with exactly one of
 * the two identifiers filled.
 */
export async function readOrdersCsv(file: string): Promise<OrderRef[]> {
  const option = '--orders';
  const [header, ...rows] = await readLines(option, file);
  const columns = header!.value.split(',').map((name) => name.trim());
  const unknown = columns.find((name) => !HEADERS.includes(name));
  if (
    unknown !== undefined ||
    !columns.includes('symbol') ||
    columns.length < 2 ||
    new Set(columns).size !== columns.length
  ) {
    throw new ValidationError(
      `${option} line ${header!.line}`,
      'must be a header of symbol plus orderId and/or clientOid, e.g. symbol,orderId,clientOid',
      header!.value,
    );
  }
  if (rows.length === 0) throw new ValidationError(option, 'the file names no order', file);
  return rows.map(({ line, value }) => {
    if (value.includes('"')) throw new ValidationError(`${option} line ${line}`, 'must not use quotes', value);
    const cells = value.split(',').map((cell) => cell.trim());
    if (cells.length !== columns.length) {
      throw new ValidationError(`${option} line ${line}`, `must have ${columns.length} fields like the header`, value);
    }
    const row = Object.fromEntries(columns.map((name, k) => [name, cells[k]!]));
    const ids = ['orderId', 'clientOid'].filter((name) => (row[name] ?? '') !== '');
    if (ids.length !== 1) {
      throw new ValidationError(`${option} line ${line}`, 'must fill exactly one of orderId and clientOid', value);
    }
    if (!row.symbol) throw new ValidationError(`${option} line ${line}`, 'must name the symbol', value);
    return { symbol: row.symbol, [ids[0]!]: row[ids[0]!] };
  });
}
