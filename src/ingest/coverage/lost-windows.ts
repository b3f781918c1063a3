import type pg from 'pg';

import { msParam, toMs } from '../../db/sql-time.ts';
import { type Stream, streamDefinition, STREAMS } from '../../streams/registry.ts';
import { formatInstant } from '../time-arguments.ts';
import { unfinishedWindows } from './window-store.ts';

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

/** The streams the exchange forgets (a horizon): the only ones whose windows can be lost. */
export const FORGETTING_STREAMS: readonly Stream[] = STREAMS.filter((s) => streamDefinition(s).horizon !== undefined);

/**
 * The oldest instant a window of `stream` can still be read from at `now` (the exchange's clock),
 * or undefined for a stream the exchange never forgets.
 */
export function lostBefore(stream: Stream, now: number): number | undefined {
  return streamDefinition(stream).horizon?.oldestReadable(now);
}

/**
 * Whether a window that never finished is lost at `now`: it ends at or before the oldest instant
 * its stream is still served from. The one test for both sides: planRetries stops reading such a
 * window and names it lost, recordLostWindows records it. `now` must be the exchange's clock for
 * both (the horizon is the exchange's); with the local clock months off, the sync would name a
 * window lost that the check never records, or the other way round.
 */
export function isLost(window: { stream: Stream; end: number }, now: number): boolean {
  const oldest = lostBefore(window.stream, now);
  return oldest !== undefined && window.end <= oldest;
}

/**
 * The accounts with a window of a forgetting stream that never finished and is not recorded lost
 * yet: the ones whose exchange clock a check must read. Judged without any clock: the local one
 * may be months off the exchange's.
 */
export async function accountsWithOpenForgettingWindows(pool: pg.Pool): Promise<string[]> {
  const result = await pool.query<{ accountId: string }>(
    `SELECT DISTINCT w.account_id AS "accountId" FROM sync_window w
      WHERE w.stream = ANY($1::sync_stream[]) AND w.status <> 'done'
        AND NOT EXISTS (SELECT 1 FROM lost_window l WHERE l.window_id = w.id)
      ORDER BY 1`,
    [FORGETTING_STREAMS],
  );
  return result.rows.map((r) => r.accountId);
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
 * Records as lost every window of the account that never finished and is lost at `now` (the
 * exchange's clock, isLost), and returns the ones THIS call recorded. The window's id is the key
 * and the insert skips one already there, so each loss is returned exactly once, whichever
 * process (worker, re-run) finds it first: the caller alerts on what it gets.
 */
export async function recordLostWindows(pool: pg.Pool, accountId: string, now: number): Promise<LostWindow[]> {
  const candidates = await unfinishedWindows(pool, accountId, FORGETTING_STREAMS);
  const lost: LostWindow[] = [];
  for (const stream of FORGETTING_STREAMS) {
    const ids = candidates.filter((w) => w.stream === stream && isLost(w, now)).map((w) => w.id);
    const oldest = lostBefore(stream, now);
    const horizon = streamDefinition(stream).horizon;
    if (ids.length === 0 || oldest === undefined || horizon === undefined) continue;
    const behind = `the exchange's ${horizon.name} (it serves from ${formatInstant(oldest)} on): its records are lost`;
    const result = await pool.query<LostRow>(
      `WITH recorded AS (
         INSERT INTO lost_window (window_id, account_id, stream, scope, window_start, window_end, readable_from, reason)
         SELECT w.id, w.account_id, w.stream, w.scope, w.window_start, w.window_end, ${msParam(1)},
                'never finished (' || w.status || coalesce(': ' || w.last_error, '') || ') and lies wholly behind ' || $2
           FROM sync_window w
          -- Still unfinished: one finished since it was read above is not lost.
          WHERE w.id = ANY($3::uuid[]) AND w.status <> 'done'
            -- Skips what is recorded already (every check would otherwise re-try each old loss);
            -- ON CONFLICT still settles two workers inserting the same new one at once.
            AND NOT EXISTS (SELECT 1 FROM lost_window l WHERE l.window_id = w.id)
         ON CONFLICT (window_id) DO NOTHING
         RETURNING *)
       SELECT r.window_id AS "windowId", r.account_id AS "accountId", a.name AS account, r.stream, r.scope,
              ${toMs('r.window_start')} AS start, ${toMs('r.window_end')} AS "end",
              ${toMs('r.readable_from')} AS "readableFrom", r.reason, ${toMs('r.detected_at')} AS "detectedAt"
         FROM recorded r JOIN account a ON a.id = r.account_id
        ORDER BY r.window_start, r.scope`,
      [String(oldest), behind, ids],
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
