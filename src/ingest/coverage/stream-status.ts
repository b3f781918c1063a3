import type pg from 'pg';

import { isStream, type Stream, streamDefinition, STREAMS } from '../streams/registry.ts';
import { coveredRanges, findGaps, type Range } from './window-store.ts';

export interface StreamStatus {
  stream: Stream;
  scope: string;
  covered: Range[];
  gaps: Range[];
  lastSuccess: Date | null;
  lastFailure: { at: Date; error: string } | null;
  windowsOpen: number;
}

/** One account's coverage, per stream and scope: what the status command shows. */
export async function streamStatuses(pool: pg.Pool, accountId: string): Promise<StreamStatus[]> {
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
    const gaps = covered.length > 1 ? await findGaps(pool, key, covered[0]!.start, covered.at(-1)!.end) : [];
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
      lastSuccess: f.last_success,
      lastFailure: f.failed_at && f.failed_error ? { at: f.failed_at, error: f.failed_error } : null,
      windowsOpen: f.open,
    });
  }
  return statuses;
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
      warnings.push(`${stream} have never been synced: the exchange keeps only ${horizon.days} days of them`);
      continue;
    }
    // The scope synced least recently decides: its oldest unsynced records leave first.
    const latest = Math.min(...scoped.map((s) => s.covered.at(-1)?.end ?? 0));
    const days = (now - latest) / 86_400_000;
    if (days > horizon.days - HORIZON_WARNING_MARGIN_DAYS) {
      warnings.push(
        `${stream} not synced for ${Math.floor(days)} days: the exchange forgets them after ${horizon.days} days`,
      );
    }
  }
  return warnings;
}
