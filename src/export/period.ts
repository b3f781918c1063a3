import { DateTime } from 'luxon';

import { ValidationError } from '../errors/index.ts';
import { parseTimeZone } from '../vocabulary/time-zone.ts';

export { parseTimeZone };

/**
 * A reporting period of whole local days: `from` and `to` are calendar dates in `tz`, both
 * included, so the instants covered are [from 00:00, to + 1 day 00:00) local time.
 */
export interface Period {
  /** yyyy-MM-dd, first day included. */
  readonly from: string;
  /** yyyy-MM-dd, last day included. */
  readonly to: string;
  /** Canonical IANA zone name. */
  readonly tz: string;
  /** First instant of the period (inclusive), UTC. */
  readonly start: Date;
  /** First instant after the period (exclusive), UTC. */
  readonly end: Date;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function localMidnight(value: string | undefined, field: string, tz: string): DateTime {
  if (value === undefined || value.trim() === '') throw new ValidationError(field, 'is required (yyyy-MM-dd)');
  const text = value.trim();
  if (!DATE.test(text)) throw new ValidationError(field, 'must be a date written yyyy-MM-dd', value);
  const day = DateTime.fromISO(text, { zone: tz });
  if (!day.isValid) throw new ValidationError(field, 'is not a calendar date', value);
  // The exchange's history starts long after 1970; earlier years only reach Postgres's limits.
  if (day.year < 1970) throw new ValidationError(field, 'must be 1970 or later', value);
  // startOf('day') also handles zones whose midnight is skipped by a DST change (it moves forward).
  return day.startOf('day');
}

export function parsePeriod(input: { from?: string; to?: string; tz?: string }): Period {
  const tz = parseTimeZone(input.tz);
  const from = localMidnight(input.from, 'from', tz);
  const to = localMidnight(input.to, 'to', tz);
  if (to < from) {
    throw new ValidationError('to', `must not be before from (${from.toISODate()})`, input.to);
  }
  const end = to.plus({ days: 1 }).startOf('day').toUTC();
  // Years past 9999 are written +010000 in ISO 8601, which Postgres refuses deep inside the export.
  if (end.year > 9999) {
    throw new ValidationError(
      'to',
      'must end the period within the year 9999 (UTC): 9999-12-30 at the latest',
      input.to,
    );
  }
  return Object.freeze({
    from: from.toISODate()!,
    to: to.toISODate()!,
    tz,
    start: from.toUTC().toJSDate(),
    end: end.toJSDate(),
  });
}

/** The previous calendar month in `tz`, as of `now` (for the monthly exports). */
export function previousMonth(now: Date, tz: string): Period {
  const zone = parseTimeZone(tz);
  const first = DateTime.fromJSDate(now, { zone }).startOf('month').minus({ months: 1 });
  return parsePeriod({ from: first.toISODate()!, to: first.endOf('month').toISODate()!, tz: zone });
}
