import { createHash } from 'node:crypto';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import pg from 'pg';

import { openClient } from '../db/pg-connections.ts';
import { copyReport } from './copy-report.ts';
import { encodeCsvHeader, encodeCsvRow } from './csv-encoder.ts';
import { FlagCounts, type UnmappedSummary } from './flag-counts.ts';
import { neutralizeCell } from './neutralize.ts';
import { PrefetchingQueryStream } from './prefetching-query-stream.ts';
import {
  OMITTED_PREFIX,
  type ReportDefinition,
  type ReportParams,
  type ReportRow,
  REVIEW_PREFIX,
  UNPAIRED_LEG,
} from './report-definition.ts';
import { ReviewAmountCounter, type ReviewAmounts } from './review-amounts.ts';
import { type ExportOpeningBalances, exportOpeningBalances } from './wallet-opening-balances.ts';

export type { UnmappedSummary } from './flag-counts.ts';

export interface StreamResult {
  rowCount: number;
  bytes: number;
  sha256: string;
  unmapped: UnmappedSummary;
  /** Rows of trade legs that could not be paired (written to the CSV, and to `unpairedSink`). */
  unpairedLegs: number;
  /** Rows the report leaves out of the file on purpose, per reason (never in rowCount). */
  omitted: UnmappedSummary;
  /** Rows written as booked whose booking an accountant should confirm, per spotTaxType. */
  review: UnmappedSummary;
  /** Each wallet's balances at the period's start, for a report that states them; else null. */
  openingBalances: ExportOpeningBalances | null;
  /** The gains reports (report-definition `reviewAmounts`): per review flag and coin, quantity and proceeds; else null. */
  reviewAmounts: ReviewAmounts | null;
}

export interface StreamReportOptions {
  databaseUrl: string;
  report: ReportDefinition;
  params: ReportParams;
  /** Where the CSV bytes go: a file, an HTTP response, ... */
  sink: Writable;
  /** Rows fetched per round trip of the server-side cursor (the Node encoder path). */
  batchSize?: number;
  /** Where the unpaired trade legs' rows go as well, as a CSV with the same header (ended here). */
  unpairedSink?: Writable;
  /**
   * How a SQL report's rows become CSV: `copy` (default) has Postgres write them (copy-report.ts);
   * `node` fetches rows through a cursor and encodes them here, the path computed reports always
   * take, kept for SQL reports as the reference the copy path is tested against.
   */
  encoder?: 'copy' | 'node';
}

// Every column arrives as text (the queries cast): keep Postgres' exact text, parse nothing.
const RAW_TEXT = { getTypeParser: () => (value: string) => value };
const CHUNK_CHARS = 64 * 1024;

/**
 * Streams one report from Postgres to `sink` as CSV in constant memory, backpressure from the sink
 * pausing the source. The bytes are hashed on their way out, so the digest is that of exactly
 * what was written.
 */
export async function streamReport(options: StreamReportOptions): Promise<StreamResult> {
  const { report, params } = options;
  const counts = new FlagCounts();
  const amounts = report.reviewAmounts ? new ReviewAmountCounter(report.columns, report.reviewAmounts) : undefined;
  const client = await openClient({ connectionString: options.databaseUrl, application_name: 'ledgerline-export' });
  try {
    // Local times in the report are the period's zone, whatever the server's default.
    await client.query(`SELECT set_config('TimeZone', $1, false)`, [params.period.tz]);
    const opening = report.statesOpeningBalances
      ? await exportOpeningBalances(client, {
          accountId: params.accountId,
          start: params.period.start,
          coin: params.coin,
        })
      : null;
    const written =
      report.kind === 'sql' && options.encoder !== 'node'
        ? await copyReport({ client, report, params, sink: options.sink, unpairedSink: options.unpairedSink, counts })
        : await encodeRows(client, options, counts, amounts);
    return {
      ...written,
      unmapped: counts.unmappedSummary,
      omitted: counts.omitted,
      review: counts.review,
      openingBalances: opening,
      reviewAmounts: amounts?.result() ?? null,
    };
  } finally {
    await client.end();
    if (options.unpairedSink) await endStream(options.unpairedSink);
  }
}

/**
 * The Node encoder: a server-side cursor (pg-query-stream) fetches `batchSize` rows at a time,
 * each row is neutralized and encoded (csv-encoder: csv-stringify's format).
 */
async function encodeRows(
  client: pg.Client,
  options: StreamReportOptions,
  counts: FlagCounts,
  amounts: ReviewAmountCounter | undefined,
) {
  const { report, params } = options;
  const columns = report.columns;
  let rowCount = 0;
  let unpairedLegs = 0;
  let bytes = 0;
  const hash = createHash('sha256');
  const source = rowSource(report, params, client, options.batchSize ?? 1_000);
  // A text file (report.textFile: the beancount journal) has no header and writes its cells as
  // they are, one line each (its tests: test/accounting/beancount-journal.test.ts).
  const textFile = report.textFile !== undefined;
  const header = textFile ? '' : encodeCsvHeader(columns.map((c) => c.header));
  const encodeRow = textFile ? (cells: string[]) => `${cells.join('\n')}\n` : encodeCsvRow;
  let pending = header;
  const emit = (stream: Transform) => {
    const chunk = Buffer.from(pending, 'utf8');
    pending = '';
    hash.update(chunk);
    bytes += chunk.length;
    stream.push(chunk);
  };
  // One hop per row: neutralize, count, encode; the CSV leaves in ~64 KB chunks, hashed on the way.
  const toCsv = new Transform({
    writableObjectMode: true,
    transform(row: (string | null)[], _encoding, callback) {
      const flag = row[columns.length];
      if (flag?.startsWith(OMITTED_PREFIX)) {
        counts.omit(flag.slice(OMITTED_PREFIX.length));
        callback();
        return;
      }
      const cells = new Array<string>(columns.length);
      for (let i = 0; i < columns.length; i++) {
        cells[i] = textFile ? (row[i] ?? '') : neutralizeCell(row[i], columns[i]!.kind);
      }
      if (flag?.startsWith(REVIEW_PREFIX)) {
        counts.toReview(flag.slice(REVIEW_PREFIX.length));
        amounts?.add(flag.slice(REVIEW_PREFIX.length), row);
      } else if (flag === UNPAIRED_LEG) {
        if (unpairedLegs++ === 0 && header) options.unpairedSink?.write(header);
        options.unpairedSink?.write(encodeRow(cells));
      } else if (flag) counts.unmapped(flag);
      rowCount++;
      pending += encodeRow(cells);
      if (pending.length >= CHUNK_CHARS) emit(this);
      callback();
    },
    flush(callback) {
      emit(this);
      callback();
    },
  });
  await pipeline(source, toCsv, options.sink);
  return { rowCount, bytes, sha256: hash.digest('hex'), unpairedLegs };
}

/** The report's rows as arrays of text cells followed by the flag column, whatever makes them. */
function rowSource(report: ReportDefinition, params: ReportParams, client: pg.Client, batchSize: number): Readable {
  if (report.kind === 'computed')
    return Readable.from(asFlaggedArrays(report.rows(params, client)), { objectMode: true });
  const { text, values } = report.query(params);
  return client.query(new PrefetchingQueryStream(text, values, { rowMode: 'array', batchSize, types: RAW_TEXT }));
}

// A computed row in the SQL reports' shape: the cells, then the flag column.
async function* asFlaggedArrays(rows: AsyncIterable<ReportRow>): AsyncGenerator<(string | null)[]> {
  for await (const row of rows) yield [...row.cells, row.flag ?? null];
}

function endStream(stream: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.once('error', reject);
    stream.end(() => resolve());
  });
}
