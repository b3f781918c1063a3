import type { StreamStatus } from '../ingest/coverage/stream-status.ts';
import type { Range } from '../ingest/coverage/window-store.ts';

/**
 * How long the uncovered stretch up to now may be before it counts as a gap: the nightly
 * sync's period plus two hours of slack for a long run, so a healthy installation's status
 * between two nightly runs exits 0 and one whose nightly run stopped exits 1 the next morning.
 */
export const FRESH_TAIL_MS = 26 * 3_600_000;

export interface StatusProblems {
  /** Uncovered ranges that count: all but a trailing one younger than FRESH_TAIL_MS. */
  gaps: Range[];
  failed: Range[];
}

/** What makes `ledgerline status` exit 1 for one stream: its gaps (less the fresh tail) and failed ranges. */
export function streamProblems(status: StreamStatus, now: number): StatusProblems {
  const fresh = freshTail(status, now);
  const gaps = status.gaps.filter((gap) => gap !== fresh);
  return { gaps, failed: status.failed };
}

/** The uncovered stretch from the last sync to now, while younger than FRESH_TAIL_MS: not a gap yet. */
export function freshTail(status: StreamStatus, now: number): Range | undefined {
  return status.gaps.find((gap) => gap.end >= now && now - gap.start <= FRESH_TAIL_MS);
}
