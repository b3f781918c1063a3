import type pg from 'pg';
import { coveredRanges, findGaps, type Range, type Stream } from './window-store.ts';

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
  const keys = await pool.query<{ stream: Stream; scope: string }>(
    `SELECT DISTINCT stream, scope FROM sync_window WHERE account_id = $1 ORDER BY stream, scope`,
    [accountId],
  );
  const statuses: StreamStatus[] = [];
  for (const { stream, scope } of keys.rows) {
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

/** Positions must be synced well inside the exchange's 3-month horizon, or history is lost for good. */
export const POSITIONS_WARNING_DAYS = 60;

export function positionsHorizonWarning(statuses: readonly StreamStatus[], now: number): string | undefined {
  const positions = statuses.filter((s) => s.stream === 'positions');
  const ends = positions.map((s) => s.covered.at(-1)?.end ?? 0);
  const latest = ends.length === 0 ? 0 : Math.min(...ends);
  const days = (now - latest) / 86_400_000;
  if (positions.length === 0) return 'positions have never been synced: the exchange keeps only 3 months of them';
  if (days > POSITIONS_WARNING_DAYS) {
    return `positions not synced for ${Math.floor(days)} days: the exchange forgets them after 90 days`;
  }
  return undefined;
}
