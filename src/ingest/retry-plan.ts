import type pg from 'pg';

import type { Stream } from '../streams/registry.ts';
import { settleCoveredWindows } from './coverage/coverage-summary.ts';
import { isLost, lostBefore } from './coverage/lost-windows.ts';
import { type SyncWindowRow, unfinishedWindows } from './coverage/window-store.ts';
import { formatInstant } from './time-arguments.ts';

export interface RetryPlan {
  /** Earlier windows to read again, from their stored cursor. */
  windows: SyncWindowRow[];
  notes: string[];
  /** Unfinished windows found wholly covered by other done windows, marked done instead of read. */
  settled: number;
}

const describe = (w: SyncWindowRow) =>
  `${w.stream}${w.scope ? ` ${w.scope}` : ''} ${formatInstant(w.start)} .. ${formatInstant(w.end)}`;

/**
 * The earlier windows of an account that never finished. An incremental sync
 * only reads forward from the end of covered data, so without this a window
 * that failed in the middle of the history would stay a hole until someone
 * noticed; each sync tries them again instead. A window of a forgetting
 * stream entirely behind its horizon cannot be read any more: it stays
 * failed, for reconciliation to report, and is named in the notes; the
 * worker records it in lost_window and alerts once (recordLostWindows, by
 * the same `isLost` test on the same clock: `now` is the exchange's).
 * One that other done windows cover wholly is not read again: it is marked
 * done first (`settleCoveredWindows`).
 */
export async function planRetries(
  pool: pg.Pool,
  accountId: string,
  streams: readonly Stream[],
  now: number,
): Promise<RetryPlan> {
  const windows: SyncWindowRow[] = [];
  const notes: string[] = [];
  const settled = await settleCoveredWindows(pool, accountId, streams);
  for (const window of await unfinishedWindows(pool, accountId, streams)) {
    if (isLost(window, now)) {
      notes.push(`${describe(window)} never finished and is now behind the exchange's horizon: its records are lost`);
      continue;
    }
    const oldest = lostBefore(window.stream, now);
    if (oldest !== undefined && window.start < oldest) {
      notes.push(`${describe(window)}: read again, but what is before ${formatInstant(oldest)} is lost`);
    }
    windows.push(window);
  }
  return { windows, notes, settled };
}
