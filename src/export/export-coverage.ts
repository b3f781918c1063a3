import pg from 'pg';

import { createPool, openClient } from '../db/pg-connections.ts';
import { PermanentError } from '../errors/index.ts';
import { coveredRanges, findGaps, scopeWindowStarts } from '../ingest/coverage/coverage-summary.ts';
import { type Stream, streamDefinition } from '../streams/registry.ts';

/** A half-open UTC interval as ISO 8601 text, as the manifest writes it. */
export interface IsoRange {
  start: string;
  end: string;
}

/** How much of a period one stream (and scope) of the account holds. */
export interface StreamCoverage {
  stream: Stream;
  scope: string;
  /** The parts of the period that done windows cover, oldest first. */
  covered: IsoRange[];
  /** The parts of the period no done window covers, oldest first. */
  gaps: IsoRange[];
  /** The end of the newest done window of the stream: the data is complete up to here. */
  asOf: string | null;
}

export interface ExportCoverage {
  /** Every stream the report reads covers the whole period. */
  complete: boolean;
  streams: StreamCoverage[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The coverage of a period for the streams a report reads, from the coverage ledger (done windows
 * only, read from their summary `sync_coverage`: a few rows however long the history). Records
 * outside any done window may be stored (a window that failed half-way), but nothing says they
 * are all there, so they do not count as covered.
 * Positions older than the exchange's horizon that were never stored are a gap like any other.
 */
export async function exportCoverage(
  databaseUrl: string,
  accountId: string,
  period: { start: Date; end: Date },
  streams: readonly Stream[],
  onlyScope?: string,
): Promise<ExportCoverage> {
  const pool = createPool({ connectionString: databaseUrl, max: 1, application_name: 'ledgerline-export' });
  try {
    const from = period.start.getTime();
    const to = period.end.getTime();
    const result: StreamCoverage[] = [];
    for (const stream of streams) {
      for (const scope of scopesOf(stream).filter((s) => onlyScope === undefined || s === onlyScope)) {
        const key = { accountId, stream, scope };
        const gaps = await findGaps(pool, key, from, to);
        result.push({
          stream,
          scope,
          covered: complement(gaps, from, to).map((r) => ({ start: iso(r.start), end: iso(r.end) })),
          gaps: gaps.map((r) => ({ start: iso(r.start), end: iso(r.end) })),
          asOf: await newestDoneEnd(pool, key),
        });
      }
    }
    return { complete: result.every((s) => s.gaps.length === 0), streams: result };
  } finally {
    await pool.end();
  }
}

/** A stream's scopes, or the one empty scope of a stream without any. */
export function scopesOf(stream: Stream): readonly string[] {
  const scopes = streamDefinition(stream).scopes;
  return scopes.length > 0 ? scopes : [''];
}

/**
 * Where the account's stored history of each scope of a stream starts: that scope's earliest
 * window ever planned (a failed or never-finished one included, so its gap shows), or
 * `periodStart` when that is earlier or nothing was planned for the scope.
 */
export async function scopeHistoryStarts(
  databaseUrl: string,
  accountId: string,
  stream: Stream,
  periodStart: Date,
): Promise<Map<string, Date>> {
  const client = await openClient({ connectionString: databaseUrl, application_name: 'ledgerline-export' });
  try {
    const starts = await scopeWindowStarts(client, accountId, stream);
    return new Map(
      scopesOf(stream).map((scope) => {
        const start = starts.get(scope);
        return [scope, start && start < periodStart ? start : periodStart];
      }),
    );
  } finally {
    await client.end();
  }
}

/** One line naming the first gap, e.g. `spot has no synced data from ... to ...`. */
export function describeFirstGap(coverage: ExportCoverage): string | undefined {
  const stream = coverage.streams.find((s) => s.gaps.length > 0);
  if (!stream) return undefined;
  const gap = stream.gaps[0]!;
  const name = stream.scope ? `${stream.stream} ${stream.scope}` : stream.stream;
  const more = coverage.streams.reduce((n, s) => n + s.gaps.length, 0) - 1;
  return `${name} has no synced data from ${gap.start} to ${gap.end}${more > 0 ? ` (and ${more} more gaps)` : ''}`;
}

function complement(gaps: { start: number; end: number }[], from: number, to: number) {
  const covered: { start: number; end: number }[] = [];
  let at = from;
  for (const gap of gaps) {
    if (gap.start > at) covered.push({ start: at, end: gap.start });
    at = Math.max(at, gap.end);
  }
  if (at < to) covered.push({ start: at, end: to });
  return covered;
}

/** The end of the newest done window: where the stream's covered ranges end. */
async function newestDoneEnd(pool: pg.Pool, key: { accountId: string; stream: Stream; scope: string }) {
  const end = (await coveredRanges(pool, key)).at(-1)?.end;
  return end === undefined ? null : iso(end);
}

/** An export asked for a period the stored history does not fully cover (and no --allow-partial). */
export class CoverageGapError extends PermanentError {
  constructor(gap: string) {
    super(`the period is not fully synced: ${gap}; sync it first, or export with --allow-partial`, {
      code: 'EXPORT_COVERAGE_GAP',
    });
  }
}

/** `x.csv` -> `x_PARTIAL.csv` (`.beancount` likewise): a file that does not hold the whole period says so in its name. */
export function partialPath(csvPath: string): string {
  const extension = /\.(csv|beancount)$/.exec(csvPath)?.[0];
  return extension ? `${csvPath.slice(0, -extension.length)}_PARTIAL${extension}` : `${csvPath}_PARTIAL`;
}
