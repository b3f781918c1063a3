import type { StreamProgress } from '../../ingest/coverage/window-progress.ts';

/**
 * The requests a stream still has to send: at least one per open window (its empty last page
 * included), and as many as its finished windows took on average, less the pages an open window
 * has read already. An estimate (a window's pages are known only once read), but from requests,
 * not from rows or time: the account's budget (requests per second) is what decides the pace.
 * Pure.
 */
export function remainingRequests(p: StreamProgress): number {
  const open = p.total - p.done - p.failed;
  if (open <= 0) return 0;
  const finished = p.done;
  const perWindow = finished > 0 ? Math.max(1, p.donePages / finished) : 1;
  return Math.max(open, Math.ceil(open * perWindow - p.openPages));
}

/**
 * The time those requests take at the stream's budget, in seconds: each waits for its turn in
 * the budget, so the budget (not the reading) decides it. Pure.
 */
export function etaSeconds(p: StreamProgress, requestsPerSecond: number): number {
  return remainingRequests(p) / Math.max(requestsPerSecond, Number.MIN_VALUE);
}

/** Seconds as `42s`, `3m 05s` or `2h 04m`: never cli-progress' `NULL`/`INF` cut to four letters. Pure. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const s = Math.ceil(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** A per-second rate as the bar shows it: `1/s`, `0.5/s`, `10/s`. Pure. */
export function formatRate(perSecond: number): string {
  return `${Number(perSecond.toFixed(2))}/s`;
}
