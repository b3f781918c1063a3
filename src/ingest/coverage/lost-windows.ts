import type pg from 'pg';

import { msParam, toMs } from '../../db/sql-time.ts';
import { type Stream, streamDefinition, STREAMS } from '../../streams/registry.ts';
import { formatInstant } from '../time-arguments.ts';

/** A window recorded in `lost_window`: what was lost, of whom, and why. */
export interface LostWindow {
  windowId: string;
  accountId: string;
  /** The account's name when the loss was recorded. */
  account: string;
  stream: Stream;
  scope: string;
  start: number;
  end: number;
  /** The oldest instant the exchange still served when the loss was found. */
  readableFrom: number;
  reason: string;
  detectedAt: number;
}

/**
 * The oldest instant a window of `stream` can still be read from at `now`, or undefined for a
 * stream the exchange never forgets. A window that never finished and ends at or before it is
 * lost: planRetries stops reading it again, and recordLostWindows records it. One definition,
 * so that what is no longer retried and what is reported lost are the same windows.
 */
export function lostBefore(stream: Stream, now: number): number | undefined {
  return streamDefinition(stream).horizon?.oldestReadable(now);
}

interface LostRow {
  windowId: string;
  accountId: string;
  account: string;
  stream: Stream;
  scope: string;
  start: string;
  end: string;
  readableFrom: string;
  reason: string;
  detectedAt: string;
}

/**
 * Records as lost every window (of every account, or of `accountId`) that never finished and now
 * lies wholly behind its stream's horizon, and returns the ones THIS call recorded. The window's
 * id is the key and the insert skips one already there, so each loss is returned exactly once,
 * whichever process (worker, sync, re-run) finds it first: the caller alerts on what it gets.
 */
export async function recordLostWindows(pool: pg.Pool, now: number, accountId?: string): Promise<LostWindow[]> {
  const lost: LostWindow[] = [];
  for (const stream of STREAMS) {
    const oldest = lostBefore(stream, now);
    const horizon = streamDefinition(stream).horizon;
    if (oldest === undefined || horizon === undefined) continue;
    const behind = `the exchange's ${horizon.name} (it serves from ${formatInstant(oldest)} on): its records are lost`;
    const result = await pool.query<LostRow>(
      `WITH recorded AS (
         INSERT INTO lost_window (window_id, account_id, stream, scope, window_start, window_end, readable_from, reason)
         SELECT w.id, w.account_id, w.stream, w.scope, w.window_start, w.window_end, ${msParam(2)},
                'never finished (' || w.status || coalesce(': ' || w.last_error, '') || ') and lies wholly behind ' || $3
           FROM sync_window w
          WHERE w.stream = $1::sync_stream AND w.status <> 'done' AND w.window_end <= ${msParam(2)}
            AND ($4::uuid IS NULL OR w.account_id = $4::uuid)
            -- Skips what is recorded already (every check would otherwise re-try each old loss);
            -- ON CONFLICT still settles two workers inserting the same new one at once.
            AND NOT EXISTS (SELECT 1 FROM lost_window l WHERE l.window_id = w.id)
         ON CONFLICT (window_id) DO NOTHING
         RETURNING *)
       SELECT r.window_id AS "windowId", r.account_id AS "accountId", a.name AS account, r.stream, r.scope,
              ${toMs('r.window_start')} AS start, ${toMs('r.window_end')} AS "end",
              ${toMs('r.readable_from')} AS "readableFrom", r.reason, ${toMs('r.detected_at')} AS "detectedAt"
         FROM recorded r JOIN account a ON a.id = r.account_id
        ORDER BY a.name, r.window_start, r.scope`,
      [stream, String(oldest), behind, accountId ?? null],
    );
    for (const row of result.rows) {
      lost.push({
        ...row,
        start: Number(row.start),
        end: Number(row.end),
        readableFrom: Number(row.readableFrom),
        detectedAt: Number(row.detectedAt),
      });
    }
  }
  return lost;
}
