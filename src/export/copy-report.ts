import { createHash } from 'node:crypto';
import { Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';

import { encodeCsvHeader } from './csv-encoder.ts';
import type { FlagCounts } from './flag-counts.ts';
import { FlagStripper } from './flag-stripper.ts';
import { inlineParams } from './inline-params.ts';
import {
  OMITTED_PREFIX,
  type ReportParams,
  REVIEW_PREFIX,
  type SqlReportDefinition,
  UNPAIRED_LEG,
} from './report-definition.ts';
import { neutralizeSql } from './sql-neutralize.ts';

export interface CopiedReport {
  rowCount: number;
  bytes: number;
  sha256: string;
  unpairedLegs: number;
}

/**
 * A SQL report as `COPY (query) TO STDOUT (FORMAT csv)`: Postgres neutralizes the cells
 * (sql-neutralize.ts) and writes the CSV, Node only strips the flag column, counts and hashes.
 * The Node encoder cost more CPU per row than Postgres needed to produce it (1.3-1.9x psql).
 *
 * Why one COPY with the flag as first column rather than several statements in one REPEATABLE
 * READ snapshot (a rows COPY, a flag-count query, a side-file COPY): every extra statement runs
 * the report's query again. Measured on the bench's 1M spot rows (server CPU): the query without
 * its flag 2.4 s, with the flag 2.9 s; a separate counting pass would add at least the whole scan
 * and the flag again, while stripping the flag in Node runs on the other core as the rows stream.
 * The row-encoding format is exactly the Node path's (test/export/copy-path.test.ts proves it
 * byte for byte): the header is csv-stringify's, and COPY's quoting is csv-stringify's once empty
 * strings are NULL (sql-neutralize.ts) and there is more than one column (COPY also quotes a
 * lone `\.` in a one-column file; the flag column makes every COPY here at least two wide).
 */
export async function copyReport(options: {
  client: pg.Client;
  report: SqlReportDefinition;
  params: ReportParams;
  sink: Writable;
  unpairedSink?: Writable | undefined;
  counts: FlagCounts;
}): Promise<CopiedReport> {
  const { report, counts } = options;
  const header = Buffer.from(encodeCsvHeader(report.columns.map((c) => c.header)), 'utf8');
  let unpairedLegs = 0;
  const stripper = new FlagStripper((flag, record) => {
    if (flag.startsWith(OMITTED_PREFIX)) {
      counts.omit(flag.slice(OMITTED_PREFIX.length));
      return 'drop';
    }
    if (flag.startsWith(REVIEW_PREFIX)) counts.toReview(flag.slice(REVIEW_PREFIX.length));
    else if (flag === UNPAIRED_LEG) {
      if (unpairedLegs++ === 0) options.unpairedSink?.write(header);
      // A copy: the record is a view into the chunk being scanned.
      options.unpairedSink?.write(Buffer.from(record));
    } else counts.unmapped(flag);
    return 'keep';
  });
  let bytes = 0;
  const hash = createHash('sha256');
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      bytes += chunk.length;
      callback(null, chunk);
    },
  });
  hashing.write(header);
  await pipeline(options.client.query(copyTo(copyStatement(report, options.params))), stripper, hashing, options.sink);
  return { rowCount: stripper.records, bytes, sha256: hash.digest('hex'), unpairedLegs };
}

/** The report's query wrapped: the flag first, then every cell neutralized, in the query's order. */
export function copyStatement(report: SqlReportDefinition, params: ReportParams): string {
  const { text, values } = report.query(params);
  const cells = report.columns.map((_c, i) => `c${i + 1}`);
  const select = ['flag', ...report.columns.map((c, i) => neutralizeSql(cells[i]!, c.kind))].join(', ');
  // A subquery with ORDER BY is not flattened into the outer query, so its order is the output's.
  return `COPY (SELECT ${select} FROM (${inlineParams(text, values)}) AS report(${[...cells, 'flag'].join(', ')})) TO STDOUT (FORMAT csv)`;
}
