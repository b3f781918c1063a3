import { DateTime } from 'luxon';

import { cachedTimeZone } from '../../vocabulary/cached-time-zone.ts';

/** The format of localTime: the SQL reports' (booking/sql-fragments.ts). */
const LOCAL_TIME_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSZZ";

/** Instants remembered per zone before the memory starts again. */
const INSTANTS_KEPT = 100_000;

/**
 * Per zone, the text of instants already written: a gains file writes a disposal's instant on
 * every lot it consumed and a lot's on every disposal that consumed it (the German file's 46,000
 * times are 14,000 instants).
 */
const written = new Map<string, Map<number, string>>();

/**
 * An instant in the period's zone, as the SQL reports write it (2026-05-01T10:00:00.000+02:00).
 * luxon's `toISO()` writes the same characters by plain concatenation, where `toFormat` tokenizes
 * the format for every call (a third of a German gains row's cost), except where it differs: a
 * fixed zone at offset 0 (UTC) it writes `Z` for the `+00:00` the format gives, and a year outside
 * 0-9999 it writes with six digits and a sign; those go the format's way.
 */
function format(ms: number, tz: string): string {
  const at = DateTime.fromMillis(ms, { zone: cachedTimeZone(tz) });
  if (!at.isValid || at.year < 0 || at.year > 9999) return at.toFormat(LOCAL_TIME_FORMAT);
  const iso = at.toISO()!;
  return iso.endsWith('Z') ? `${iso.slice(0, -1)}+00:00` : iso;
}

/** An instant in the period's zone, as the SQL reports write it (2026-05-01T10:00:00.000+02:00). */
export function localTime(ms: number, tz: string): string {
  let zone = written.get(tz);
  if (zone === undefined) {
    zone = new Map();
    written.set(tz, zone);
  }
  let text = zone.get(ms);
  if (text === undefined) {
    text = format(ms, tz);
    if (zone.size >= INSTANTS_KEPT) zone.clear();
    zone.set(ms, text);
  }
  return text;
}
