import { gridCell, type WindowSpan } from '../../src/exchange/paging/window-planner.ts';

const DAY = 86_400_000;

/**
 * A range of `spanDays` ending at or before `end` that lies inside ONE grid cell of the endpoint, so
 * a backfill of it is one window of that whole span on any date. A range taken as "N days back from
 * now" straddles a cell boundary on some days of every cell, and one of its two windows is then too
 * short for what the test needs (a second page, say): the test passes or fails by the calendar.
 * When `end` is too close to its cell's start, the range is the last `spanDays` of the cell before.
 */
export function rangeInOneCell(span: WindowSpan, end: number, spanDays: number): { from: number; to: number } {
  const spanMs = spanDays * DAY;
  if (spanMs > span.maxSpanDays * DAY) throw new RangeError(`spanDays: at most the cell of ${span.maxSpanDays} days`);
  const cell = gridCell(span, end - 1);
  const to = end - cell.start >= spanMs ? end : cell.start;
  return { from: to - spanMs, to };
}
