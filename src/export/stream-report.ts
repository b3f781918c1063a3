import { createHash } from 'node:crypto';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import pg from 'pg';

import { encodeCsvHeader, encodeCsvRow } from './csv-encoder.ts';
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

export interface UnmappedSummary {
  /** Rows carrying a value the mapping or the schema does not know. */
  rows: number;
  /** Those rows per value, e.g. { "spotTaxType=Foo": 3 }. */
  values: Record<string, number>;
}

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
}

export interface StreamReportOptions {
  databaseUrl: string;
  report: ReportDefinition;
  params: ReportParams;
  /** Where the CSV bytes go: a file, an HTTP response, ... */
  sink: Writable;
  /** Rows fetched per round trip of the server-side cursor. */
  batchSize?: number;
  /** Where the unpaired trade legs' rows go as well, as a CSV with the same header (ended here). */
  unpairedSink?: Writable;
}

// Every column arrives as text (the queries cast): keep Postgres' exact text, parse nothing.
const RAW_TEXT = { getTypeParser: () => (value: string) => value };
// Distinct unmapped values kept in the manifest; beyond that they are only counted.
const MAX_UNMAPPED_VALUES = 200;
const CHUNK_CHARS = 64 * 1024;

/**
 * Streams one report from Postgres to `sink` as CSV in constant memory: a server-side cursor
 * (pg-query-stream) fetches `batchSize` rows at a time, each row is neutralized and encoded
 * (csv-encoder: csv-stringify's format), and backpressure from the sink pauses the cursor.
 * The bytes are hashed on their way out, so the digest is that of exactly what was written.
 */
export async function streamReport(options: StreamReportOptions): Promise<StreamResult> {
  const { report, params } = options;
  const columns = report.columns;
  const unmapped: UnmappedSummary = { rows: 0, values: {} };
  const omitted: UnmappedSummary = { rows: 0, values: {} };
  const review: UnmappedSummary = { rows: 0, values: {} };
  let distinct = 0;
  let rowCount = 0;
  let unpairedLegs = 0;
  let bytes = 0;
  const hash = createHash('sha256');

  const client = new pg.Client({ connectionString: options.databaseUrl, application_name: 'ledgerline-export' });
  await client.connect();
  try {
    // Local times in the report are the period's zone, whatever the server's default.
    await client.query(`SELECT set_config('TimeZone', $1, false)`, [params.period.tz]);
    const source = rowSource(report, params, client, options.batchSize ?? 1_000);
    // A text file (report.textFile) has no header and writes its cells as they are, one line each.
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
        const omit = row[columns.length];
        if (omit?.startsWith(OMITTED_PREFIX)) {
          const reason = omit.slice(OMITTED_PREFIX.length);
          omitted.rows++;
          omitted.values[reason] = (omitted.values[reason] ?? 0) + 1;
          callback();
          return;
        }
        const cells = new Array<string>(columns.length);
        for (let i = 0; i < columns.length; i++) {
          cells[i] = textFile ? (row[i] ?? '') : neutralizeCell(row[i], columns[i]!.kind);
        }
        const flag = row[columns.length];
        if (flag?.startsWith(REVIEW_PREFIX)) {
          const type = flag.slice(REVIEW_PREFIX.length);
          review.rows++;
          review.values[type] = (review.values[type] ?? 0) + 1;
        } else if (flag === UNPAIRED_LEG) {
          if (unpairedLegs++ === 0 && header) options.unpairedSink?.write(header);
          options.unpairedSink?.write(encodeRow(cells));
        } else if (flag) {
          unmapped.rows++;
          if (flag in unmapped.values) unmapped.values[flag]!++;
          else if (distinct < MAX_UNMAPPED_VALUES) {
            unmapped.values[flag] = 1;
            distinct++;
          }
        }
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
  } finally {
    await client.end();
    if (options.unpairedSink) await endStream(options.unpairedSink);
  }
  return { rowCount, bytes, sha256: hash.digest('hex'), unmapped, unpairedLegs, omitted, review };
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
