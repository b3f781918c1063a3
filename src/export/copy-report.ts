import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import type pg from 'pg';

import { CopyOutQuery } from './copy-out-query.ts';
import { CopyRowRewriter } from './copy-row-rewriter.ts';
import { encodeCsvHeader } from './csv-encoder.ts';
import type { FlagCounts } from './flag-counts.ts';
import { inlineParams } from './inline-params.ts';
import {
  OMITTED_PREFIX,
  type ReportParams,
  REVIEW_PREFIX,
  type SqlReportDefinition,
  UNPAIRED_LEG,
} from './report-definition.ts';

export interface CopiedReport {
  rowCount: number;
  bytes: number;
  sha256: string;
  unpairedLegs: number;
}

/**
 * A SQL report as `COPY (query) TO STDOUT (FORMAT csv)`: Postgres runs the report's own query and
 * writes the CSV, as `psql \copy` of it would; Node reads the rows off the socket
 * (copy-out-query.ts) and, in the same pass, leaves out the flag column, neutralizes formula
 * cells, counts and hashes (copy-row-rewriter.ts). The Node encoder cost more CPU per row than
 * Postgres needed to produce it (1.3-1.9x psql).
 *
 * Why the neutralization is not SQL around the query (as it was): a CASE per cell runs in the one
 * backend that sends the rows, 0.6-0.75 s of server CPU at the bench's million rows (psql's whole
 * query: 3.5 s), and the wrapping subquery's costlier projection made the planner pick a parallel
 * plan psql's query does not get. Recognising a suspect cell by its first byte costs next to
 * nothing in the pass over the bytes that finds the flag anyway. Why one COPY with the flag
 * as a column rather than several statements in one snapshot (a rows COPY, a flag-count query, a
 * side-file COPY): every extra statement runs the report's query again; the flag is computed by
 * the query itself, 0.1 s at a million rows.
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
  const rows = new CopyRowRewriter(
    report.columns.map((c) => c.kind),
    header,
    (flag, record) => {
      if (flag.startsWith(OMITTED_PREFIX)) {
        counts.omit(flag.slice(OMITTED_PREFIX.length));
        return 'drop';
      }
      if (flag.startsWith(REVIEW_PREFIX)) counts.toReview(flag.slice(REVIEW_PREFIX.length));
      else if (flag === UNPAIRED_LEG) {
        if (unpairedLegs++ === 0) options.unpairedSink?.write(header);
        // A copy: the record is a view into the block being filled.
        options.unpairedSink?.write(Buffer.from(record));
      } else counts.unmapped(flag);
      return 'keep';
    },
  );
  await pipeline(options.client.query(new CopyOutQuery(copyStatement(report, options.params), rows)), options.sink);
  return { rowCount: rows.records, bytes: rows.bytes, sha256: rows.digest(), unpairedLegs };
}

/** The report's query as COPY writes it: its cells, then its flag column, unchanged. */
export function copyStatement(report: SqlReportDefinition, params: ReportParams): string {
  const { text, values } = report.query(params);
  return `COPY (${inlineParams(text, values)}) TO STDOUT (FORMAT csv)`;
}
