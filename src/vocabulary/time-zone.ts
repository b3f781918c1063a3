import { IANAZone } from 'luxon';

import { ValidationError } from '../errors/index.ts';

/**
 * Checks an IANA time zone name and returns its canonical spelling (e.g. `europe/berlin` -> `Europe/Berlin`).
 * Here, below both, so that reports (src/export) and price imports (src/accounting) read zones alike
 * without one importing the other.
 */
export function parseTimeZone(tz: string | undefined, field = 'tz'): string {
  const value = (tz ?? 'UTC').trim();
  // Luxon also accepts fixed offsets and 'system'; only IANA names mean the same thing in Postgres.
  if (!IANAZone.isValidZone(value)) {
    throw new ValidationError(field, 'must be an IANA time zone name such as UTC or Europe/Berlin', tz);
  }
  return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
}
