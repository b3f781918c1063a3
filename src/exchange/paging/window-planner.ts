import { DateTime } from 'luxon';

import { ValidationError } from '../../errors/validation-error.ts';

/**
 * What the planner needs of an endpoint a history is read from, declared by
 * its stream (`src/streams/<name>/endpoint.ts`): the widest window one
 * request may cover and, for an endpoint that forgets, how many days back it
 * still serves. The planner, the pagers and reconciliation all ask
 * `horizonStart` of the same declaration.
 */
export interface WindowSpan {
  /** The widest window one request may cover, in UTC days. */
  readonly maxSpanDays: number;
  /** Set when the endpoint serves only the last so many days (positions: 90). */
  readonly horizonDays?: number;
}

/**
 * Positions older than this margin inside the horizon are left out: the
 * exchange checks the horizon against its own clock when each page is asked
 * for, a little later than we plan.
 */
export const HORIZON_MARGIN_MS = 60_000;

/**
 * One window: the half-open [start, end) in UTC ms. The same shape is used
 * from the CLI to the database (a `sync_window` row is one); only the pagers
 * turn it into the exchange's inclusive bounds (`exchangeBounds`).
 */
export interface TimeWindow {
  start: number;
  end: number;
}

/**
 * The exchange reads both of its bounds as inclusive, so endTime = end - 1:
 * consecutive windows [a, b) and [b, c) become [a, b-1] and [b, c-1], which
 * neither overlap nor leave a millisecond out, and endTime - startTime stays
 * below the endpoint's maximum span.
 */
export function exchangeBounds(window: TimeWindow): { startTime: string; endTime: string } {
  return { startTime: String(window.start), endTime: String(window.end - 1) };
}

export interface PlanOptions {
  /** "Now" for a horizon; the exchange's (simulator's) clock. */
  now?: number;
  horizonMarginMs?: number;
}

/**
 * The oldest start the endpoint still serves at `now`, with the margin; for an
 * endpoint that keeps everything, -Infinity.
 */
export function horizonStart(span: WindowSpan, now: number, marginMs = HORIZON_MARGIN_MS): number {
  const days = span.horizonDays;
  if (days === undefined) return Number.NEGATIVE_INFINITY;
  return DateTime.fromMillis(now, { zone: 'utc' }).minus({ days }).toMillis() + marginMs;
}

/**
 * Where every stream's window grid starts: the Unix epoch. Grid cells are
 * whole multiples of the endpoint's span from here (spot: 30-day blocks,
 * transfers: 7-day blocks), so the same instant always falls in the same
 * cell, whatever range was asked for. UTC days are exactly 86,400,000 ms in
 * Unix time (no leap seconds, no daylight saving), so plain arithmetic is the
 * calendar here.
 */
export const GRID_EPOCH_MS = 0;

const DAY_MS = 86_400_000;

/** The grid cell [start, end) of the endpoint's span that holds `instant`. */
export function gridCell(span: WindowSpan, instant: number): TimeWindow {
  const cellMs = span.maxSpanDays * DAY_MS;
  const start = GRID_EPOCH_MS + Math.floor((instant - GRID_EPOCH_MS) / cellMs) * cellMs;
  return { start, end: start + cellMs };
}

/**
 * Splits [from, to) at the endpoint's grid (`gridCell`), oldest first: every
 * window lies in one cell, so none exceeds the maximum span, and only the
 * first and the last may be cut short by the range. Two requests with
 * different `from` produce the same windows where they overlap, which is what
 * lets a later backfill, sync or retry meet the windows an earlier one read.
 * For an endpoint with a horizon, `from` is first raised to it: older data
 * cannot be asked for.
 */
export function planWindows(span: WindowSpan, from: number, to: number, options: PlanOptions = {}): TimeWindow[] {
  checkMs('from', from);
  checkMs('to', to);
  if (from > to) throw new ValidationError('to', 'must not be before from', to);
  const start = Math.max(from, horizonStart(span, options.now ?? Date.now(), options.horizonMarginMs));
  const windows: TimeWindow[] = [];
  let cursor = start;
  while (cursor < to) {
    const end = Math.min(gridCell(span, cursor).end, to);
    windows.push({ start: cursor, end });
    cursor = end;
  }
  return windows;
}

function checkMs(field: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ValidationError(field, 'must be Unix milliseconds (a non-negative integer)', value);
  }
}
