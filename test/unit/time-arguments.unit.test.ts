import { describe, expect, it } from 'vitest';

import { ValidationError } from '../../src/errors/index.ts';
import { LATEST_INSTANT, parseInstant } from '../../src/ingest/time-arguments.ts';

function refusal(value: string): ValidationError {
  try {
    parseInstant('--from', value);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error(`${value} was accepted`);
}

describe('parseInstant: out of range', () => {
  it.each([
    ['a year before 1970', '1969-12-31'],
    ['the year 1', '0001-01-01'],
    ['an instant before 1970 once its offset is applied', '1970-01-01T00:30:00+01:00'],
    ['Unix ms after the year 9999', String(LATEST_INSTANT + 1)],
    ['Unix ms beyond 2^53 (Number would round it)', '9007199254740993'],
    ['a 20-digit number', '12345678901234567890'],
  ])('refuses %s, naming the field typed and the years allowed', (_name, value) => {
    const error = refusal(value);
    expect(error.field).toBe('--from');
    expect(error.message).toBe(`--from: must be a time in the years 1970 to 9999 (UTC) (got "${value}")`);
  });

  it.each(['2026-01-31T12:00:00+14:30', '2026-01-31T12:00:00-15:00', '2026-01-31T12:00:00+23:59'])(
    'refuses the offset of %s (beyond +-14:00)',
    (value) => {
      expect(refusal(value).message).toBe(`--from: must have a UTC offset from -14:00 to +14:00 (got "${value}")`);
    },
  );

  it('accepts the edges: 1970-01-01, +-14:00, the last millisecond of 9999', () => {
    expect(parseInstant('--from', '1970-01-01')).toBe(0);
    expect(parseInstant('--from', '2026-01-01T14:00:00+14:00')).toBe(Date.UTC(2026, 0, 1));
    expect(parseInstant('--from', '2026-01-01T00:00:00-14:00')).toBe(Date.UTC(2026, 0, 1, 14));
    expect(parseInstant('--to', '9999-12-31T23:59:59.999Z')).toBe(LATEST_INSTANT);
    expect(parseInstant('--to', String(LATEST_INSTANT))).toBe(LATEST_INSTANT);
  });

  it('still reads a short number as a mistyped date, not an instant of January 1970', () => {
    expect(refusal('20260131').message).toMatch(/^--from: must be a date \(YYYY-MM-DD, UTC\)/);
  });
});
