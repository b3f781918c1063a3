import type { TimeWindow } from '../../exchange/index.ts';

/**
 * The parts of `window` that none of `covered` holds, oldest first. `covered`
 * is a stream's coverage: the union of its done windows, whatever their
 * boundaries (cut from an old `--from` or on the grid), merged and sorted
 * (`coveredRanges`). Coverage is judged as intervals, never by matching window
 * keys, so the ledger needs no migration when the planner's grid changes.
 */
export function uncoveredParts(window: TimeWindow, covered: readonly TimeWindow[]): TimeWindow[] {
  const parts: TimeWindow[] = [];
  let cursor = window.start;
  for (const range of covered) {
    if (range.end <= cursor) continue;
    if (range.start >= window.end) break;
    if (range.start > cursor) parts.push({ start: cursor, end: range.start });
    cursor = Math.max(cursor, range.end);
    if (cursor >= window.end) break;
  }
  if (cursor < window.end) parts.push({ start: cursor, end: window.end });
  return parts;
}
