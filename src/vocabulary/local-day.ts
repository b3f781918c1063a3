import { DateTime } from 'luxon';

import { cachedTimeZone } from './cached-time-zone.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Hours remembered per zone before the memory starts again (about 11 years of hours). */
const HOURS_KEPT = 100_000;

/** A calendar date (an instant's in some zone), with what the tax rules compute from it. */
export interface LocalDay {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  /** `yyyy-MM-dd`, as luxon's `toISODate()` writes it. */
  readonly isoDate: string;
  /** Days since 1970-01-01 of this date, so that calendar days between two dates are a subtraction. */
  readonly ordinal: number;
  /** The ordinal of the same date one calendar year later (luxon's `plus({ years: 1 })`: 29 February -> 28 February). */
  readonly ordinalYearLater: number;
}

/** Dates remembered (days since 1970-01-01 -> date) before the memory starts again. */
const DATES_KEPT = 100_000;
const dates = new Map<number, LocalDay>();

/** The date of an ordinal and its derived figures, from luxon's calendar, once per date. */
function dateOf(ordinal: number): LocalDay {
  let known = dates.get(ordinal);
  if (known === undefined) {
    const date = DateTime.fromMillis(ordinal * DAY_MS, { zone: 'utc' });
    known = {
      year: date.year,
      month: date.month,
      day: date.day,
      isoDate: date.toISODate()!,
      ordinal,
      ordinalYearLater: Math.round(date.plus({ years: 1 }).toMillis() / DAY_MS),
    };
    if (dates.size >= DATES_KEPT) dates.clear();
    dates.set(ordinal, known);
  }
  return known;
}

/**
 * The ordinal of the local date of an instant at a given offset (minutes): luxon reads an
 * instant's local fields from a Date of the instant moved by its offset (`tsToObj`), which counts
 * whole days since 1970-01-01 of that moved instant (truncated to the millisecond, as Date does).
 */
const localOrdinal = (atMs: number, offset: number) => Math.floor(Math.trunc(atMs + offset * 60_000) / DAY_MS);

/** Per zone name, per UTC hour (ms / 1h): that hour's date, or null when it holds a transition or a midnight. */
const zones = new Map<string, Map<number, LocalDay | null>>();

/**
 * The date an instant falls on in a zone, remembered per UTC hour. The gains reports ask for the
 * Berlin or London date of every acquisition and disposal, and the same instants and hours recur
 * across rows (one disposal matches several lots); a luxon DateTime moved to the start of its day
 * and compared or diffed cost a German gains file about a second per 20,000 rows.
 *
 * An hour whose first and last millisecond have the same offset holds no transition (tzdb zones
 * never change their offset twice within an hour and back, cached-time-zone.ts relies on the
 * same), so its local time runs evenly with UTC; if both ends also fall on the same date, every
 * instant in between does. Any other hour (a transition, or a midnight inside it, as in zones with
 * half-hour offsets) is computed instant by instant. The offsets are the zone's own
 * (cached-time-zone.ts) and the dates luxon's, so the answers are luxon's.
 */
export function localDay(zoneName: string, atMs: number): LocalDay {
  const zone = cachedTimeZone(zoneName);
  let hours = zones.get(zoneName);
  if (hours === undefined) {
    hours = new Map();
    zones.set(zoneName, hours);
  }
  const hour = Math.floor(atMs / HOUR_MS);
  let known = hours.get(hour);
  if (known === undefined) {
    const first = hour * HOUR_MS;
    const last = first + HOUR_MS - 1;
    const offset = zone.offset(first);
    const ordinal = localOrdinal(first, offset);
    known = zone.offset(last) === offset && localOrdinal(last, offset) === ordinal ? dateOf(ordinal) : null;
    if (hours.size >= HOURS_KEPT) hours.clear();
    hours.set(hour, known);
  }
  return known ?? dateOf(localOrdinal(atMs, zone.offset(atMs)));
}
