import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';

import { CsvError, parse } from 'csv-parse';
import { DateTime } from 'luxon';
import type pg from 'pg';

import { ValidationError } from '../../errors/index.ts';
import { parseInstant } from '../../ingest/time-arguments.ts';
import { parseTimeZone } from '../../vocabulary/time-zone.ts';
import { coinCode, priceValue, sourceName, TRADE_SOURCE } from './price-point.ts';

export interface ImportPricesResult {
  /** Rows of the file (the header not counted). */
  readonly rows: number;
  /** Points the rows stand for: one per row, one per day of its month for a monthly row. */
  readonly points: number;
  /** Points new to the table. */
  readonly inserted: number;
  /** Points already there whose price the file changed. */
  readonly updated: number;
  /** Points already there with the same price: nothing written. */
  readonly unchanged: number;
}

export interface ImportPricesOptions {
  /** The source of every row without a `source` column (or with it empty), e.g. `ecb`. */
  readonly source?: string | undefined;
  /**
   * Where a `date` starts: the zone whose calendar the rate belongs to (default UTC). A GBP series
   * for `--method uk` is imported with Europe/London, a EUR series for `--method de` with
   * Europe/Berlin, so a rate values the transactions of its London or Berlin date.
   */
  readonly zone?: string | undefined;
  /**
   * `daily` (default): a `date` row is that date's rate. `monthly`: the `date` column holds months
   * (yyyy-MM, e.g. HMRC's monthly exchange rates) and each row is the rate of every day of its
   * calendar month: stored as one point per day, so the lookup and its tolerance stay as they are.
   */
  readonly period?: PricePeriod | undefined;
}

export const PRICE_PERIODS = ['daily', 'monthly'] as const;
export type PricePeriod = (typeof PRICE_PERIODS)[number];

const COLUMNS = ['time', 'date', 'base', 'quote', 'price', 'source'] as const;
const BATCH = 2_000;
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T.+(Z|[+-]\d{2}:?\d{2})$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const MONTH = /^\d{4}-\d{2}$/;

/** A checked row, as staged. */
interface StagedRow {
  line: number;
  ms: number;
  base: string;
  quote: string;
  price: string;
  source: string;
}

/**
 * Imports market prices (account_id NULL) from a CSV file: docs/reports.md, "Prices and valuation".
 *
 * Header required; columns (any order, names case-insensitive): `time` or `date` (exactly one),
 * `base`, `quote`, `price`, and `source` unless `options.source` is given (a row's own non-empty
 * source wins). `time` is an ISO-8601 date-time with Z or an offset, or Unix ms. `date` (yyyy-MM-dd)
 * is that date's rate in `options.zone` (default UTC), stamped at the date's first instant, so it
 * values that date's transactions (HMRC and the BMF value a transaction at its day's rate);
 * `--period monthly` takes months (yyyy-MM) and stores a month's rate for each of its days.
 * `price` is a plain positive decimal (1 base = price quote), kept exactly as written. `trade` is
 * not an import's source (it names the account's own fills).
 *
 * All or nothing: rows are checked while streamed into a temporary table inside one transaction;
 * the first bad row (or a row repeating another's base, quote, time and source) raises a typed
 * error naming its line and field and nothing is written. Then one upsert on the natural key
 * (base, quote, time, source): a re-import rewrites only changed prices.
 */
export async function importPrices(
  db: pg.ClientBase,
  file: string | Readable,
  options: ImportPricesOptions = {},
): Promise<ImportPricesResult> {
  const defaultSource = options.source === undefined ? undefined : checkedSource('--source', options.source);
  const calendar: Calendar = {
    zone: parseTimeZone(options.zone, '--zone'),
    period: parsePeriodOption(options.period),
  };
  const input = typeof file === 'string' ? await openFile(file) : file;
  // Cell counts are checked per row below (naming the line); csv-parse would raise the same later, unhandled.
  const parser = parse({ bom: true, trim: true, skip_empty_lines: true, info: true, relax_column_count: true });
  // pipe() does not pass the file's errors on: without this a missing file would leave the loop waiting.
  input.on('error', (error) => parser.destroy(new ValidationError('file', `cannot be read: ${error.message}`)));
  // Read through the loop below; before it starts, an error must not be an uncaught 'error' event.
  parser.on('error', () => undefined);
  input.pipe(parser);
  let header: Header | undefined;
  let rows = 0;
  let points = 0;
  let batch: StagedRow[] = [];
  await db.query('BEGIN');
  try {
    await db.query(`CREATE TEMP TABLE price_import (
        line integer NOT NULL, time timestamptz(3) NOT NULL, base text NOT NULL, quote text NOT NULL,
        price numeric NOT NULL, source text NOT NULL) ON COMMIT DROP`);
    try {
      for await (const record of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
        const line = record.info.lines;
        if (header === undefined) {
          header = readHeader(record.record, line, defaultSource);
          continue;
        }
        if (calendar.period === 'monthly' && header.index.date === undefined) {
          throw new ValidationError(
            `line ${header.line}`,
            'must have a date column of months (yyyy-MM) with --period monthly',
          );
        }
        batch.push(...checkRow(header, record.record, line, defaultSource, calendar));
        rows += 1;
        if (batch.length >= BATCH) {
          points += batch.length;
          await stage(db, batch);
          batch = [];
        }
      }
    } catch (error) {
      if (error instanceof CsvError) {
        const line = typeof error.lines === 'number' ? error.lines : undefined;
        throw new ValidationError(line === undefined ? 'file' : `line ${line}`, `is not valid CSV: ${error.message}`);
      }
      throw error;
    }
    if (header === undefined)
      throw new ValidationError('file', 'must start with a header line (time or date, base, quote, price, source)');
    points += batch.length;
    await stage(db, batch);
    await refuseRepeats(db);
    const { rows: written } = await db.query<{ inserted: boolean }>(
      `INSERT INTO price (time, base, quote, price, source, account_id)
       SELECT time, base, quote, price, source, NULL FROM price_import
       ON CONFLICT (base, quote, time, source) WHERE account_id IS NULL
       DO UPDATE SET price = EXCLUDED.price WHERE price.price <> EXCLUDED.price
       RETURNING xmax = 0 AS inserted`,
    );
    await db.query('COMMIT');
    const inserted = written.filter((row) => row.inserted).length;
    const updated = written.length - inserted;
    return { rows, points, inserted, updated, unchanged: points - inserted - updated };
  } catch (error) {
    await db.query('ROLLBACK').catch(() => undefined);
    parser.destroy();
    input.destroy();
    throw error;
  }
}

async function openFile(path: string): Promise<Readable> {
  try {
    return (await open(path, 'r')).createReadStream();
  } catch (error) {
    throw new ValidationError('--file', `cannot be read: ${(error as Error).message}`, path);
  }
}

interface Header {
  readonly index: Partial<Record<(typeof COLUMNS)[number], number>>;
  readonly width: number;
  readonly line: number;
}

interface Calendar {
  readonly zone: string;
  readonly period: PricePeriod;
}

function readHeader(names: string[], line: number, defaultSource: string | undefined): Header {
  const index: Partial<Record<(typeof COLUMNS)[number], number>> = {};
  names.forEach((raw, position) => {
    const name = raw.trim().toLowerCase() as (typeof COLUMNS)[number];
    if (!COLUMNS.includes(name)) {
      throw new ValidationError(`line ${line}`, `has an unknown column; the columns are ${COLUMNS.join(', ')}`, raw);
    }
    if (index[name] !== undefined) throw new ValidationError(`line ${line}`, 'names a column twice', raw);
    index[name] = position;
  });
  if ((index.time === undefined) === (index.date === undefined)) {
    throw new ValidationError(`line ${line}`, 'must have exactly one of the columns time and date', names.join(','));
  }
  for (const needed of ['base', 'quote', 'price'] as const) {
    if (index[needed] === undefined)
      throw new ValidationError(`line ${line}`, `must have a column ${needed}`, names.join(','));
  }
  if (index.source === undefined && defaultSource === undefined) {
    throw new ValidationError(`line ${line}`, 'must have a column source, or give --source', names.join(','));
  }
  return { index, width: names.length, line };
}

function checkRow(
  header: Header,
  cells: string[],
  line: number,
  defaultSource: string | undefined,
  calendar: Calendar,
): StagedRow[] {
  const { index } = header;
  const cell = (name: (typeof COLUMNS)[number]) => (index[name] === undefined ? '' : (cells[index[name]] ?? ''));
  const field = (name: string) => `line ${line}, ${name}`;
  if (cells.length !== header.width) {
    throw new ValidationError(`line ${line}`, `must have ${header.width} cells like the header`, cells.length);
  }
  const instants =
    index.time !== undefined
      ? [timeCell(field('time'), cell('time'))]
      : calendar.period === 'monthly'
        ? monthCell(field('date'), cell('date'), calendar.zone)
        : [dateCell(field('date'), cell('date'), calendar.zone)];
  const base = coinCode(field('base'), cell('base'));
  const quote = coinCode(field('quote'), cell('quote'));
  if (base === quote) throw new ValidationError(field('quote'), 'must differ from base', cell('quote'));
  const price = priceValue(field('price'), cell('price')).toFixed();
  const own = cell('source');
  const source = own !== '' ? checkedSource(field('source'), own) : defaultSource;
  if (source === undefined) throw new ValidationError(field('source'), 'must not be empty (or give --source)', own);
  return instants.map((ms) => ({ line, ms, base, quote, price, source }));
}

function timeCell(field: string, text: string): number {
  if (!ISO_WITH_ZONE.test(text) && !/^\d{11,}$/.test(text)) {
    throw new ValidationError(
      field,
      "must be a date-time with Z or an offset (2026-01-31T12:00:00Z) or Unix ms; a day's price goes in a date column",
      text,
    );
  }
  return parseInstant(field, text);
}

/**
 * A date's rate is stamped at the date's first instant in the zone: the lookup takes the newest
 * point at or before a transaction, so every transaction of that date (London's, Berlin's, UTC's)
 * gets that date's rate, and none of the day before gets it.
 */
function dateCell(field: string, text: string, zone: string): number {
  const day = DATE.test(text) ? DateTime.fromISO(text, { zone }) : undefined;
  if (day === undefined || !day.isValid || day.year < 1970 || day.year > 9999) {
    throw new ValidationError(field, 'must be a calendar date written yyyy-MM-dd (1970 to 9999)', text);
  }
  return day.startOf('day').toMillis();
}

/** A month's rate: the first instant of each of its days, so it values that calendar month and no other. */
function monthCell(field: string, text: string, zone: string): number[] {
  const month = MONTH.test(text) ? DateTime.fromISO(`${text}-01`, { zone }) : undefined;
  if (month === undefined || !month.isValid || month.year < 1970 || month.year > 9999) {
    throw new ValidationError(field, 'must be a month written yyyy-MM (1970 to 9999) with --period monthly', text);
  }
  const days: number[] = [];
  for (let day = month.startOf('month'); day.month === month.month; day = day.plus({ days: 1 })) {
    days.push(day.startOf('day').toMillis());
  }
  return days;
}

function parsePeriodOption(value: string | undefined): PricePeriod {
  if (value === undefined) return 'daily';
  if (!(PRICE_PERIODS as readonly string[]).includes(value)) {
    throw new ValidationError('--period', `must be one of ${PRICE_PERIODS.join(', ')}`, value);
  }
  return value as PricePeriod;
}

function checkedSource(field: string, text: string): string {
  const name = sourceName(field, text);
  if (name === TRADE_SOURCE) {
    throw new ValidationError(
      field,
      `must not be "${TRADE_SOURCE}": it names prices implied by the account's own trades`,
      text,
    );
  }
  return name;
}

async function stage(db: pg.ClientBase, rows: StagedRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO price_import (line, time, base, quote, price, source)
     SELECT line, timestamptz 'epoch' + ms * interval '1 millisecond', base, quote, price, source
       FROM unnest($1::int[], $2::bigint[], $3::text[], $4::text[], $5::numeric[], $6::text[])
            AS t(line, ms, base, quote, price, source)`,
    [
      rows.map((row) => row.line),
      rows.map((row) => row.ms),
      rows.map((row) => row.base),
      rows.map((row) => row.quote),
      rows.map((row) => row.price),
      rows.map((row) => row.source),
    ],
  );
}

/** Two rows for one point would make the upsert's outcome depend on their order: refused. */
async function refuseRepeats(db: pg.ClientBase): Promise<void> {
  const { rows } = await db.query<{ first: number; second: number }>(
    `SELECT min(line) AS first, (array_agg(line ORDER BY line))[2] AS second
       FROM price_import GROUP BY base, quote, time, source HAVING count(*) > 1
      ORDER BY 2 LIMIT 1`,
  );
  const repeat = rows[0];
  if (repeat !== undefined) {
    throw new ValidationError(
      `line ${repeat.second}`,
      `repeats the base, quote, time and source of line ${repeat.first}`,
    );
  }
}
