import type pg from 'pg';

import { msParam } from '../../db/sql-time.ts';
import { isStream, type Stream, streamDefinition, STREAMS } from '../../streams/registry.ts';
import { parseRanges, type Range, rangesJson } from './coverage-summary.ts';

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
 *
 * One statement, reading the coverage summary and the windows not done (coverage-summary.ts):
 * a handful of rows however many nights have passed. The span is judged from the first planned
 * instant to now, so history never read at either end (a backfill whose first windows failed, a
 * sync that stopped running) shows as a gap too.
 */
export async function streamStatuses(
  pool: pg.Pool,
  accountId: string,
  now: number = Date.now(),
): Promise<StreamStatus[]> {
  const result = await pool.query<{
    stream: string;
    scope: string;
    covered: [string, string][];
    gaps: [string, string][];
    failed: [string, string][];
    open: number;
    last_success: Date | null;
    failed_at: Date | null;
    failed_error: string | null;
  }>(STATUS_SQL, [accountId, String(now)]);
  const statuses: StreamStatus[] = [];
  for (const row of result.rows) {
    const stream = row.stream;
    // The database enum and the registry hold the same names (a test checks it).
    if (!isStream(stream)) continue;
    const gaps = parseRanges(row.gaps);
    statuses.push({
      stream,
      scope: row.scope,
      covered: parseRanges(row.covered),
      gaps,
      failed: parseRanges(row.failed),
      beyondHorizon: partsBefore(gaps, streamDefinition(stream).horizon?.oldestReadable(now)),
      lastSuccess: row.last_success,
      lastFailure: row.failed_at && row.failed_error ? { at: row.failed_at, error: row.failed_error } : null,
      windowsOpen: row.open,
    });
  }
  return statuses;
}

// Per stream scope of the account ($1), now $2. `o`: the windows not done (sync_window_open_idx);
// `p`: the planned span, from the earliest window's start to the latest one's end; `failed`: the
// failed windows merged, less what done windows cover (a failure since read again is no failure).
const STATUS_SQL = `
  SELECT c.stream::text AS stream, c.scope,
         ${rangesJson('c.covered')} AS covered,
         ${rangesJson(`CASE WHEN p.start IS NULL THEN '{}'::tstzmultirange
                            ELSE tstzmultirange(tstzrange(p.start, greatest(${msParam(2)}, p."end"), '[)')) - c.covered END`)} AS gaps,
         ${rangesJson('o.failed - c.covered')} AS failed,
         o.open, s.last_success, f.at AS failed_at, f.error AS failed_error
    FROM sync_coverage c
   CROSS JOIN LATERAL (
         SELECT count(*)::int AS open, min(w.window_start) AS start, max(w.window_end) AS "end",
                COALESCE(range_agg(tstzrange(w.window_start, w.window_end, '[)')) FILTER (WHERE w.status = 'failed'),
                         '{}'::tstzmultirange) AS failed
           FROM sync_window w
          WHERE w.account_id = c.account_id AND w.stream = c.stream AND w.scope = c.scope AND w.status <> 'done') o
   CROSS JOIN LATERAL (SELECT least(lower(c.covered), o.start) AS start, greatest(upper(c.covered), o."end") AS "end") p
   CROSS JOIN LATERAL (
         SELECT max(w.finished_at) AS last_success FROM sync_window w
          WHERE w.account_id = c.account_id AND w.stream = c.stream AND w.scope = c.scope AND w.status = 'done') s
    LEFT JOIN LATERAL (
         SELECT w.updated_at AS at, w.last_error AS error FROM sync_window w
          WHERE w.account_id = c.account_id AND w.stream = c.stream AND w.scope = c.scope AND w.last_error IS NOT NULL
          ORDER BY w.updated_at DESC LIMIT 1) f ON true
   WHERE c.account_id = $1
   ORDER BY c.stream::text, c.scope`;

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

/**
 * A stream the exchange forgets must be synced well inside its horizon, or
 * history is lost for good: warn once less than this many days are left.
 */
export const HORIZON_WARNING_MARGIN_DAYS = 30;

/**
 * One warning per forgetting stream that was never synced, never completed a window (its windows
 * planned, none done), or not synced for too long.
 */
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
    // Windows planned but none done yet: there is no last sync to count days from.
    const unread = scoped.filter((s) => s.covered.length === 0).map((s) => s.scope || undefined);
    if (unread.length > 0) {
      const scopes = unread.some((scope) => scope !== undefined) ? ` (${unread.filter(Boolean).join(', ')})` : '';
      warnings.push(
        `${stream}${scopes}: has never completed a window; the exchange keeps only ${horizon.days} days of it`,
      );
      continue;
    }
    // The scope synced least recently decides: its oldest unsynced records leave first.
    const latest = Math.min(...scoped.map((s) => s.covered.at(-1)!.end));
    const days = (now - latest) / 86_400_000;
    if (days > horizon.days - HORIZON_WARNING_MARGIN_DAYS) {
      warnings.push(
        `${stream}: not synced for ${Math.floor(days)} days; the exchange forgets its records after ${horizon.days} days`,
      );
    }
  }
  return warnings;
}
