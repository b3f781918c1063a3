import { DateTime } from 'luxon';

import { ValidationError } from '../errors/index.ts';

/**
 * A time given on the command line: an ISO date (`2026-01-31`, UTC midnight)
 * or an ISO date-time with an offset or Z (`2026-01-31T12:00:00Z`), or Unix ms.
 */
export function parseInstant(field: string, value: string): number {
  const text = value.trim();
  if (/^\d{11,16}$/.test(text)) return Number(text);
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const date = DateTime.fromISO(text, { zone: 'utc' });
    if (date.isValid) return date.toMillis();
  } else if (/^\d{4}-\d{2}-\d{2}T.+(Z|[+-]\d{2}:?\d{2})$/.test(text)) {
    const date = DateTime.fromISO(text, { setZone: true });
    if (date.isValid) return date.toMillis();
  }
  throw new ValidationError(
    field,
    'must be a date (YYYY-MM-DD, UTC), a date-time with offset (2026-01-31T12:00:00Z) or Unix milliseconds',
    value,
  );
}

export function formatInstant(ms: number): string {
  return DateTime.fromMillis(ms, { zone: 'utc' }).toISO({ suppressMilliseconds: true }) ?? String(ms);
}
