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
 * Positions older than this margin inside the horizon are left out: the
 * exchange checks the horizon against its own clock when each page is asked
 * for, a little later than we plan.
 */
export const HORIZON_MARGIN_MS = 60_000;

/**
 * One request window. `from`/`to` are the half-open [from, to) in UTC ms that
 * the caller reasons in; `startTime`/`endTime` are what the exchange receives.
 * The exchange reads both of its bounds as inclusive, so endTime = to - 1:
 * consecutive windows [a, b) and [b, c) become [a, b-1] and [b, c-1], which
 * neither overlap nor leave a millisecond out, and endTime - startTime stays
 * below the endpoint's maximum span.
 */
export interface TimeWindow {
  from: number;
  to: number;
  startTime: string;
  endTime: string;
}

export interface PlanOptions {
  /** "Now" for the positions' 3-month horizon; the exchange's (simulator's) clock. */
  now?: number;
  horizonMarginMs?: number;
}

/** The oldest `from` the exchange still serves positions for, with the margin. */
export function positionHorizon(now: number, marginMs = HORIZON_MARGIN_MS): number {
  return DateTime.fromMillis(now, { zone: 'utc' }).minus({ days: POSITION_HORIZON_DAYS }).toMillis() + marginMs;
}

/**
 * Splits [from, to) into consecutive windows of the endpoint's maximum span
 * (90, 30 or 7 UTC days; the last one shorter), oldest first. For positions
 * `from` is first raised to the 3-month horizon: older data cannot be asked for.
 */
export function planWindows(stream: WindowedStream, from: number, to: number, options: PlanOptions = {}): TimeWindow[] {
  checkMs('from', from);
  checkMs('to', to);
  if (from > to) throw new ValidationError('to', 'must not be before from', to);
  let start = from;
  if (stream === 'historyPosition') {
    start = Math.max(start, positionHorizon(options.now ?? Date.now(), options.horizonMarginMs));
  }
  const windows: TimeWindow[] = [];
  let cursor = DateTime.fromMillis(start, { zone: 'utc' });
  while (cursor.toMillis() < to) {
    const end = Math.min(cursor.plus({ days: MAX_SPAN_DAYS[stream] }).toMillis(), to);
    windows.push({ from: cursor.toMillis(), to: end, startTime: String(cursor.toMillis()), endTime: String(end - 1) });
    cursor = DateTime.fromMillis(end, { zone: 'utc' });
  }
  return windows;
}

function checkMs(field: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ValidationError(field, 'must be Unix milliseconds (a non-negative integer)', value);
  }
}
