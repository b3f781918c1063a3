import { DateTime, IANAZone } from 'luxon';
import { describe, expect, it } from 'vitest';

import { cachedTimeZone } from '../../src/vocabulary/cached-time-zone.ts';

const MINUTE = 60_000;

/** Every minute of the 3 hours around each of a year's transitions, and a random sample of the year. */
function instantsAround(zone: string, year: number): number[] {
  const iana = IANAZone.create(zone);
  const start = DateTime.utc(year, 1, 1).toMillis();
  const end = DateTime.utc(year + 1, 1, 1).toMillis();
  const instants: number[] = [];
  for (let hour = start; hour < end; hour += 3_600_000) {
    if (iana.offset(hour) === iana.offset(hour + 3_600_000)) continue;
    for (let ms = hour - 3_600_000; ms <= hour + 7_200_000; ms += MINUTE) instants.push(ms, ms + 1, ms - 1);
  }
  for (let i = 0; i < 2_000; i++) instants.push(start + Math.floor(Math.random() * (end - start)));
  return instants;
}

describe('cachedTimeZone', () => {
  // Lord Howe moves by 30 minutes, Kathmandu has a 45-minute offset, Apia skipped a whole day (2011).
  for (const [zone, year] of [
    ['Europe/Berlin', 2026],
    ['Europe/London', 2025],
    ['Australia/Lord_Howe', 2026],
    ['Asia/Kathmandu', 1985],
    ['Pacific/Apia', 2011],
    ['America/Sao_Paulo', 2018],
  ] as const) {
    it(`gives ${zone}'s own offset at every instant around its ${year} transitions`, () => {
      const cached = cachedTimeZone(zone);
      const iana = IANAZone.create(zone);
      const instants = instantsAround(zone, year);
      expect(instants.length).toBeGreaterThan(2_000);
      const wrong = instants.filter((ms) => cached.offset(ms) !== iana.offset(ms));
      expect(wrong).toEqual([]);
      // Asked twice (the second time from memory), the same.
      expect(instants.filter((ms) => cached.offset(ms) !== iana.offset(ms))).toEqual([]);
    });
  }

  it('gives the own offset to a walk reading hour after hour, across a year of transitions', () => {
    // A fresh zone name, so that every hour is first asked with the hour before it remembered.
    for (const zone of ['America/St_Johns', 'Australia/Lord_Howe']) {
      const cached = cachedTimeZone(zone);
      const iana = IANAZone.create(zone);
      const start = DateTime.utc(2010, 1, 1).toMillis();
      const wrong: number[] = [];
      for (let ms = start; ms < start + 366 * 24 * 3_600_000; ms += 17 * MINUTE + 1) {
        if (cached.offset(ms) !== iana.offset(ms)) wrong.push(ms);
      }
      expect(wrong).toEqual([]);
    }
  });

  it('makes the same dates as the plain zone name: local fields, start of day, ISO text', () => {
    for (const ms of instantsAround('Europe/Berlin', 2026)) {
      const plain = DateTime.fromMillis(ms, { zone: 'Europe/Berlin' });
      const cached = DateTime.fromMillis(ms, { zone: cachedTimeZone('Europe/Berlin') });
      expect(cached.toISO()).toBe(plain.toISO());
      expect(cached.startOf('day').toMillis()).toBe(plain.startOf('day').toMillis());
      expect(cached.zoneName).toBe('Europe/Berlin');
      expect(cached.zone.equals(plain.zone)).toBe(true);
    }
  });

  it('leaves UTC and invalid names as luxon makes them', () => {
    expect(cachedTimeZone('UTC').type).toBe('fixed');
    expect(cachedTimeZone('Mars/Olympus').isValid).toBe(false);
    expect(DateTime.fromMillis(0, { zone: cachedTimeZone('Mars/Olympus') }).isValid).toBe(false);
  });
});
