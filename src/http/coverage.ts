import type pg from 'pg';

import type { PrismaClient } from '../db/prisma.ts';
import { REPORTS } from '../export/reports/index.ts';
import { type StreamStatus, streamStatuses } from '../ingest/coverage/stream-status.ts';
import type { Range } from '../ingest/coverage/window-store.ts';
import { isStream, type Stream, STREAM_TITLES, streamDefinition, STREAMS } from '../streams/registry.ts';

/** The streams whose records a report reads (its definition says): their coverage decides whether it is complete. */
function reportStreams(report: string): readonly Stream[] {
  return REPORTS.find((r) => r.name === report)?.streams ?? STREAMS;
}

export { STREAM_TITLES };

/** One stream and scope of an account on the timeline. */
export interface StreamTimeline {
  stream: Stream;
  scope: string;
  covered: Range[];
  /** Windows that failed for good (their part of history is missing until read again). */
  failed: Range[];
  /** Windows planned or being read. */
  open: Range[];
  /** The end of the newest covered stretch: the data is complete up to here (if no gap before). */
  asOf: number | null;
  lastSuccess: Date | null;
  lastFailure: { at: Date; error: string } | null;
}

export interface ReconciliationView {
  finishedAt: Date;
  passed: boolean;
  recount: string;
  /** The first failing line of the summary, if it failed. */
  finding: string | undefined;
}

export interface AccountCoverage {
  streams: StreamTimeline[];
  reconciliation: ReconciliationView | null;
}

/** Windows not done, merged per stream, scope and status. */
async function openAndFailed(pool: pg.Pool, accountId: string) {
  const result = await pool.query<{ stream: string; scope: string; status: string; start: string; end: string }>(
    `SELECT stream::text AS stream, scope, status::text AS status,
            (extract(epoch from lower(g)) * 1000)::bigint::text AS start,
            (extract(epoch from upper(g)) * 1000)::bigint::text AS "end"
       FROM (SELECT stream, scope, CASE WHEN status = 'failed' THEN 'failed' ELSE 'open' END AS status,
                    unnest(range_agg(tstzrange(window_start, window_end, '[)'))) AS g
               FROM sync_window WHERE account_id = $1 AND status <> 'done'
              GROUP BY 1, 2, 3) x
      ORDER BY lower(g)`,
    [accountId],
  );
  return result.rows.map((r) => ({ ...r, range: { start: Number(r.start), end: Number(r.end) } }));
}

/** Everything the coverage timeline of one account shows. */
export async function accountCoverage(
  pool: pg.Pool,
  prisma: PrismaClient,
  accountId: string,
): Promise<AccountCoverage> {
  const statuses: StreamStatus[] = await streamStatuses(pool, accountId);
  const pending = await openAndFailed(pool, accountId);
  const streams = statuses.map((s) => {
    const mine = pending.filter((p) => p.stream === s.stream && p.scope === s.scope);
    return {
      stream: s.stream,
      scope: s.scope,
      covered: s.covered,
      failed: mine.filter((p) => p.status === 'failed').map((p) => p.range),
      open: mine.filter((p) => p.status === 'open').map((p) => p.range),
      asOf: s.covered.at(-1)?.end ?? null,
      lastSuccess: s.lastSuccess,
      lastFailure: s.lastFailure,
    };
  });
  const report = await prisma.reconciliationReport.findFirst({
    where: { accountId },
    orderBy: { finishedAt: 'desc' },
    select: { finishedAt: true, passed: true, recount: true, summary: true },
  });
  const reconciliation = report
    ? {
        finishedAt: report.finishedAt,
        passed: report.passed,
        recount: report.recount,
        finding: report.passed ? undefined : report.summary.split('\n').find((line) => /fail/i.test(line)),
      }
    : null;
  return { streams, reconciliation };
}

/** A part of a requested period that no done window covers. */
export interface PeriodGap extends Range {
  stream: Stream;
  scope: string;
  /** Older than what the exchange still serves (at the time asked): no backfill or sync can read it. */
  beyondHorizon: boolean;
}

/**
 * Splits each gap of a forgetting stream at the oldest instant its exchange still serves at
 * `now`: the older part is beyond the horizon, for good; the rest can still be read.
 */
export function markBeyondHorizon(gaps: readonly Omit<PeriodGap, 'beyondHorizon'>[], now: number): PeriodGap[] {
  return gaps.flatMap((g) => {
    const oldest = streamDefinition(g.stream).horizon?.oldestReadable(now);
    if (oldest === undefined || g.start >= oldest) return [{ ...g, beyondHorizon: false }];
    if (g.end <= oldest) return [{ ...g, beyondHorizon: true }];
    return [
      { ...g, end: oldest, beyondHorizon: true },
      { ...g, start: oldest, beyondHorizon: false },
    ];
  });
}

/**
 * The parts of [start, end) the report's streams do not cover, per stream and scope; with `asOf`,
 * as they stood then (windows finished later do not count: an export written at `asOf` lacked
 * them). A stream never read at all is one gap over the whole period. Each gap says whether it
 * lies beyond the stream's horizon at `now` (today, whatever `asOf`): what no command can read any more.
 */
export function periodGaps(
  pool: pg.Pool,
  accountId: string,
  report: string,
  period: { start: Date; end: Date },
  asOf?: Date,
  now: number = Date.now(),
): Promise<PeriodGap[]> {
  return streamGaps(pool, accountId, reportStreams(report), period, asOf, now);
}

/** periodGaps for the given streams rather than a report's. */
export async function streamGaps(
  pool: pg.Pool,
  accountId: string,
  streams: readonly Stream[],
  period: { start: Date; end: Date },
  asOf?: Date,
  now: number = Date.now(),
): Promise<PeriodGap[]> {
  const result = await pool.query<{ stream: string; scope: string | null; start: string | null; end: string | null }>(
    `WITH wanted AS (
       SELECT unnest($2::sync_stream[]) AS stream
     ), scopes AS (
       SELECT w.stream, c.scope, COALESCE(c.covered, '{}'::tstzmultirange) AS covered, c.longest_window_ms
         FROM wanted w LEFT JOIN sync_coverage c ON c.account_id = $1 AND c.stream = w.stream
     ), covered AS (
       -- As of $5: the coverage summary less what only windows finished later (or settled, with no
       -- finish) cover. They are the newest few (sync_window_done_finished_idx); the windows
       -- finished by then that reach into their stretch start at most the longest window before it.
       SELECT sc.stream, sc.scope,
              CASE WHEN $5::timestamptz IS NULL THEN sc.covered
                   ELSE (sc.covered - late.r) + (early.r * late.r) END AS r
         FROM scopes sc
         LEFT JOIN LATERAL (
           SELECT COALESCE(range_agg(tstzrange(window_start, window_end, '[)')), '{}'::tstzmultirange) AS r
             FROM sync_window
            WHERE $5::timestamptz IS NOT NULL AND account_id = $1 AND stream = sc.stream AND scope = sc.scope
              AND status = 'done' AND (finished_at > $5 OR finished_at IS NULL)) late ON true
         LEFT JOIN LATERAL (
           SELECT COALESCE(range_agg(tstzrange(window_start, window_end, '[)')), '{}'::tstzmultirange) AS r
             FROM sync_window
            WHERE NOT isempty(late.r) AND account_id = $1 AND stream = sc.stream AND scope = sc.scope
              AND status = 'done' AND finished_at <= $5
              AND window_start >= lower(late.r) - sc.longest_window_ms * interval '1 millisecond'
              AND window_start < upper(late.r) AND window_end > lower(late.r)) early ON true
     ), gaps AS (
       SELECT stream, scope,
              unnest(tstzmultirange(tstzrange(timestamptz 'epoch' + $3 * interval '1 millisecond',
                                              timestamptz 'epoch' + $4 * interval '1 millisecond', '[)')) - r) AS g
         FROM covered
     )
     SELECT stream::text AS stream, scope,
            (extract(epoch from lower(g)) * 1000)::bigint::text AS start,
            (extract(epoch from upper(g)) * 1000)::bigint::text AS "end"
       FROM gaps ORDER BY stream, scope, lower(g)`,
    [accountId, streams, String(period.start.getTime()), String(period.end.getTime()), asOf ?? null],
  );
  const gaps = result.rows
    .filter((r) => isStream(r.stream) && r.start !== null && r.end !== null)
    .map((r) => ({ stream: r.stream as Stream, scope: r.scope ?? '', start: Number(r.start), end: Number(r.end) }));
  return markBeyondHorizon(gaps, now);
}
