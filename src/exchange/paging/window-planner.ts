import { DateTime } from 'luxon';

import { ValidationError } from '../../errors/validation-error.ts';
import {
  DEPOSIT_WITHDRAWAL_MAX_DAYS,
  HISTORY_POSITION_MAX_DAYS,
  POSITION_HORIZON_DAYS,
  SPOT_RECORD_MAX_DAYS,
} from '../requests/history-requests.ts';

export type WindowedStream = 'historyPosition' | 'spotRecord' | 'allSubDepositWithdrawal';

export const MAX_SPAN_DAYS: Readonly<Record<WindowedStream, number>> = {
  historyPosition: HISTORY_POSITION_MAX_DAYS,
  spotRecord: SPOT_RECORD_MAX_DAYS,
  allSubDepositWithdrawal: DEPOSIT_WITHDRAWAL_MAX_DAYS,
};

/**
 * The endpoints that forget: how many days back they still serve. This table
 * is the one place the 3-month positions horizon is decided; the planner, the
 * pagers, the ingest streams and reconciliation all ask `horizonStart`.
 */
export const HORIZON_DAYS: Readonly<Partial<Record<WindowedStream, number>>> = {
  historyPosition: POSITION_HORIZON_DAYS,
};

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
export function horizonStart(endpoint: WindowedStream, now: number, marginMs = HORIZON_MARGIN_MS): number {
  const days = HORIZON_DAYS[endpoint];
  if (days === undefined) return Number.NEGATIVE_INFINITY;
  return DateTime.fromMillis(now, { zone: 'utc' }).minus({ days }).toMillis() + marginMs;
}

/** The oldest start the exchange still serves positions for, with the margin. */
export function positionHorizon(now: number, marginMs = HORIZON_MARGIN_MS): number {
  return horizonStart('historyPosition', now, marginMs);
}

/**
 * Splits [from, to) into consecutive windows of the endpoint's maximum span
 * (90, 30 or 7 UTC days; the last one shorter), oldest first. For an endpoint
 * with a horizon, `from` is first raised to it: older data cannot be asked for.
 */
export function planWindows(
  endpoint: WindowedStream,
  from: number,
  to: number,
  options: PlanOptions = {},
): TimeWindow[] {
  checkMs('from', from);
  checkMs('to', to);
  if (from > to) throw new ValidationError('to', 'must not be before from', to);
  const start = Math.max(from, horizonStart(endpoint, options.now ?? Date.now(), options.horizonMarginMs));
  const windows: TimeWindow[] = [];
  let cursor = DateTime.fromMillis(start, { zone: 'utc' });
  while (cursor.toMillis() < to) {
    const end = Math.min(cursor.plus({ days: MAX_SPAN_DAYS[endpoint] }).toMillis(), to);
    windows.push({ start: cursor.toMillis(), end });
    cursor = DateTime.fromMillis(end, { zone: 'utc' });
  }
  return windows;
}

function checkMs(field: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ValidationError(field, 'must be Unix milliseconds (a non-negative integer)', value);
  }
}
