import type pg from 'pg';

import { isStream, type Stream, streamDefinition, STREAMS } from '../../streams/registry.ts';
import { coveredRanges, findGaps, type Range } from './window-store.ts';

export interface StreamStatus {
  stream: Stream;
  scope: string;
  covered: Range[];
  /**
   * What is not covered between the start of the earliest window ever planned and now: before
   * the first covered range, between ranges, and after the last one.
   */
  gaps: Range[];
  /** Parts of the gaps whose windows failed (and were not covered since), merged. */
  failed: Range[];
  /**
   * Parts of the gaps older than what the exchange still serves (a stream with a horizon): never
   * read and beyond the exchange's horizon, so no backfill or sync can recover them.
   */
  beyondHorizon: Range[];
  lastSuccess: Date | null;
  lastFailure: { at: Date; error: string } | null;
  windowsOpen: number;
}

/**
 * One account's coverage, per stream and scope: what the status command shows. `now` ends the
 * span gaps are judged over (taken once by the caller).
 */
export async function streamStatuses(
  pool: pg.Pool,
  accountId: string,
  now: number = Date.now(),
): Promise<StreamStatus[]> {
  const keys = await pool.query<{ stream: string; scope: string }>(
    `SELECT DISTINCT stream::text AS stream, scope FROM sync_window WHERE account_id = $1 ORDER BY stream, scope`,
    [accountId],
  );
  const statuses: StreamStatus[] = [];
  for (const { stream, scope } of keys.rows) {
    // The database enum and the registry hold the same names (a test checks it).
    if (!isStream(stream)) continue;
    const key = { accountId, stream, scope };
    const covered = await coveredRanges(pool, key);
    const planned = await plannedSpan(pool, key);
    // Judged from the first planned instant to now, so history never read at either end (a
    // backfill whose first windows failed, a sync that stopped running) shows as a gap too.
    const gaps = planned ? await findGaps(pool, key, planned.start, Math.max(now, planned.end)) : [];
    const failed = await failedRanges(pool, key);
    const beyondHorizon = partsBefore(gaps, streamDefinition(stream).horizon?.oldestReadable(now));
    const facts = await pool.query<{
      last_success: Date | null;
      failed_at: Date | null;
      failed_error: string | null;
      open: number;
    }>(
      `SELECT max(finished_at) FILTER (WHERE status = 'done') AS last_success,
              (array_agg(updated_at ORDER BY updated_at DESC) FILTER (WHERE last_error IS NOT NULL))[1] AS failed_at,
              (array_agg(last_error ORDER BY updated_at DESC) FILTER (WHERE last_error IS NOT NULL))[1] AS failed_error,
              count(*) FILTER (WHERE status <> 'done')::int AS open
         FROM sync_window WHERE account_id = $1 AND stream = $2 AND scope = $3`,
      [accountId, stream, scope],
    );
    const f = facts.rows[0]!;
    statuses.push({
      stream,
      scope,
      covered,
      gaps,
      failed,
      beyondHorizon,
      lastSuccess: f.last_success,
      lastFailure: f.failed_at && f.failed_error ? { at: f.failed_at, error: f.failed_error } : null,
      windowsOpen: f.open,
    });
  }
  return statuses;
}

/** The parts of `ranges` before `instant` (none when there is no such instant). */
export function partsBefore(ranges: readonly Range[], instant: number | undefined): Range[] {
  if (instant === undefined) return [];
  return ranges.filter((r) => r.start < instant).map((r) => ({ start: r.start, end: Math.min(r.end, instant) }));
}

/** The parts of `ranges` from `instant` on (all of them when there is no such instant). */
export function partsFrom(ranges: readonly Range[], instant: number | undefined): Range[] {
  if (instant === undefined) return [...ranges];
  return ranges.filter((r) => r.end > instant).map((r) => ({ start: Math.max(r.start, instant), end: r.end }));
}

type StreamKey = { accountId: string; stream: Stream; scope: string };

/** From the start of the earliest window ever planned to the end of the latest. */
async function plannedSpan(pool: pg.Pool, key: StreamKey): Promise<Range | null> {
  const result = await pool.query<{ start: string | null; end: string | null }>(
    `SELECT (extract(epoch from min(window_start)) * 1000)::bigint::text AS start,
            (extract(epoch from max(window_end)) * 1000)::bigint::text AS "end"
       FROM sync_window WHERE account_id = $1 AND stream = $2 AND scope = $3`,
    [key.accountId, key.stream, key.scope],
  );
  const row = result.rows[0];
  return row?.start && row.end ? { start: Number(row.start), end: Number(row.end) } : null;
}

/** Failed windows, merged, less whatever done windows cover (a failure since read again is no failure). */
async function failedRanges(pool: pg.Pool, key: StreamKey): Promise<Range[]> {
  const result = await pool.query<{ start: string; end: string }>(
    `WITH failed AS (
       SELECT COALESCE(range_agg(tstzrange(window_start, window_end, '[)')) FILTER (WHERE status = 'failed'),
                       '{}'::tstzmultirange) AS f,
              COALESCE(range_agg(tstzrange(window_start, window_end, '[)')) FILTER (WHERE status = 'done'),
                       '{}'::tstzmultirange) AS d
         FROM sync_window WHERE account_id = $1 AND stream = $2 AND scope = $3
     )
     SELECT (extract(epoch from lower(g)) * 1000)::bigint::text AS start,
            (extract(epoch from upper(g)) * 1000)::bigint::text AS "end"
       FROM (SELECT unnest(f - d) AS g FROM failed) x
      ORDER BY lower(g)`,
    [key.accountId, key.stream, key.scope],
  );
  return result.rows.map((r) => ({ start: Number(r.start), end: Number(r.end) }));
}

/**
 * A stream the exchange forgets must be synced well inside its horizon, or
 * history is lost for good: warn once less than this many days are left.
 */
export const HORIZON_WARNING_MARGIN_DAYS = 30;

/** One warning per forgetting stream that was never synced or not synced for too long. */
export function horizonWarnings(statuses: readonly StreamStatus[], now: number): string[] {
  const warnings: string[] = [];
  for (const stream of STREAMS) {
    const horizon = streamDefinition(stream).horizon;
    if (!horizon) continue;
    const scoped = statuses.filter((s) => s.stream === stream);
    if (scoped.length === 0) {
      warnings.push(`${stream}: never synced; the exchange keeps only ${horizon.days} days of it`);
      continue;
    }
    // The scope synced least recently decides: its oldest unsynced records leave first.
    const latest = Math.min(...scoped.map((s) => s.covered.at(-1)?.end ?? 0));
    const days = (now - latest) / 86_400_000;
    if (days > horizon.days - HORIZON_WARNING_MARGIN_DAYS) {
      warnings.push(
        `${stream}: not synced for ${Math.floor(days)} days; the exchange forgets its records after ${horizon.days} days`,
      );
    }
  }
  return warnings;
}
