import { DateTime, IANAZone } from 'luxon';
import { describe, expect, it } from 'vitest';

import { daysHeld, deYear, taxableSale } from '../../src/accounting/gains/de-private-sales.ts';
import { taxYearOf, taxYearsOf } from '../../src/accounting/gains/tax-years.ts';
import { ukDate, ukDayOrdinal, ukTaxYear } from '../../src/accounting/gains/uk-day.ts';
import { localTime } from '../../src/export/reports/local-time.ts';
import { localDay } from '../../src/vocabulary/local-day.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A fixed sequence of pseudo-random numbers in [0, 1), so a failure names the same instants again. */
function randoms(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

/**
 * Instants where dates go wrong: every quarter hour of the hours
 * around each transition and each local midnight near one (and their neighbouring milliseconds), 29 February and its neighbours, and a
 * sample of the years.
 */
function instantsOf(zone: string, years: readonly number[]): number[] {
  const iana = IANAZone.create(zone);
  const instants: number[] = [];
  const around = (at: number) => {
    for (let ms = at - 2 * HOUR; ms <= at + 2 * HOUR; ms += 15 * MINUTE) instants.push(ms);
    instants.push(at - 1, at + 1);
  };
  for (const year of years) {
    const start = DateTime.utc(year, 1, 1).toMillis();
    const end = DateTime.utc(year + 1, 1, 1).toMillis();
    for (let hour = start; hour < end; hour += HOUR) {
      if (iana.offset(hour) !== iana.offset(hour + HOUR)) {
        around(hour);
        around(DateTime.fromMillis(hour, { zone }).startOf('day').toMillis());
        around(DateTime.fromMillis(hour, { zone }).endOf('day').toMillis() + 1);
      }
    }
    for (const [month, day] of [
      [2, 28],
      [2, 29],
      [3, 1],
      [12, 31],
    ] as const) {
      const date = DateTime.fromObject({ year, month, day }, { zone });
      if (date.isValid) around(date.toMillis());
    }
    const next = randoms(year);
    for (let i = 0; i < 100; i++) instants.push(start + Math.floor(next() * (end - start)));
  }
  return instants;
}

// Plain luxon, as the code computed these before local-day.ts remembered them.
const plainDay = (zone: string, ms: number) => DateTime.fromMillis(ms, { zone }).startOf('day');
const plainDaysHeld = (a: number, d: number) =>
  Math.round(plainDay('Europe/Berlin', d).diff(plainDay('Europe/Berlin', a), 'days').days);
const plainTaxable = (a: number, d: number) =>
  plainDay('Europe/Berlin', d) <= plainDay('Europe/Berlin', a).plus({ years: 1 });
const plainUkDate = (ms: number) => DateTime.fromMillis(ms, { zone: 'Europe/London' }).toISODate();
const plainOrdinal = (iso: string) => Math.round(DateTime.fromISO(iso, { zone: 'utc' }).toMillis() / DAY);
const plainLocalTime = (ms: number, tz: string) =>
  DateTime.fromMillis(ms, { zone: tz }).toFormat("yyyy-MM-dd'T'HH:mm:ss.SSSZZ");

const YEARS = [1893, 1945, 2024, 2025] as const;
const SPECIAL_YEARS: Readonly<Record<string, readonly number[]>> = {
  'Pacific/Apia': [2011, 2021],
  'America/St_Johns': [2010, 2024],
};

describe('localDay: the date of an instant in a zone, remembered per hour', () => {
  // Lord Howe moves by 30 minutes, Kathmandu has a 45-minute offset, Apia skipped a whole day
  // (2011), St John's is 3:30 behind and until 2011 went back from 00:01 to 23:01 the day before
  // (half past a UTC hour: that hour's two ends have one date, its middle the next), Berlin
  // before 1893 was 53 minutes 28 seconds ahead.
  for (const zone of [
    'Europe/Berlin',
    'Europe/London',
    'UTC',
    'Australia/Lord_Howe',
    'Asia/Kathmandu',
    'Pacific/Apia',
    'America/St_Johns',
  ]) {
    it(`is luxon's date in ${zone}, around transitions, midnights and 29 February`, () => {
      const instants = instantsOf(zone, SPECIAL_YEARS[zone] ?? YEARS);
      expect(instants.length).toBeGreaterThan(400);
      // Twice: the second time from memory.
      for (let pass = 0; pass < 2; pass++) {
        const wrong = instants.filter((ms) => {
          const day = localDay(zone, ms);
          const plain = plainDay(zone, ms);
          return (
            day.isoDate !== plain.toISODate() ||
            day.year !== plain.year ||
            day.month !== plain.month ||
            day.day !== plain.day ||
            day.ordinal !== plainOrdinal(plain.toISODate()!)
          );
        });
        expect(wrong).toEqual([]);
      }
    });
  }

  it('counts calendar days held and the one-year period as luxon does, across DST and 29 February', () => {
    const instants = instantsOf('Europe/Berlin', [2024, 2025]);
    const next = randoms(7);
    const pairs: [number, number][] = [];
    for (const acquired of instants) {
      // A year later to the hour, and either side of it: the edge of the period.
      for (const shift of [-DAY, -HOUR, 0, HOUR, DAY]) pairs.push([acquired, acquired + 365 * DAY + shift]);
      pairs.push([acquired, acquired + 366 * DAY]);
      pairs.push([acquired, instants[Math.floor(next() * instants.length)]!]);
    }
    const wrong = pairs.filter(
      ([a, d]) => daysHeld(a, d) !== plainDaysHeld(a, d) || taxableSale(a, d) !== plainTaxable(a, d),
    );
    expect(wrong).toEqual([]);
    const berlin = (local: string) => DateTime.fromISO(local, { zone: 'Europe/Berlin' }).toMillis();
    // Bought on 29 February 2024: the year ends on 28 February 2025, 365 days later.
    expect(taxableSale(berlin('2024-02-29T23:30'), berlin('2025-02-28T00:10'))).toBe(true);
    expect(taxableSale(berlin('2024-02-29T23:30'), berlin('2025-03-01T00:10'))).toBe(false);
    expect(daysHeld(berlin('2024-02-29T23:30'), berlin('2025-03-01T00:10'))).toBe(366);
    // Across the spring change (30 March 2025, a 23-hour day): one calendar day.
    expect(daysHeld(berlin('2025-03-29T23:59'), berlin('2025-03-30T23:59'))).toBe(1);
  });

  it("gives the German year, the London date, its ordinal and the tax years as luxon's dates do", () => {
    const berlin = instantsOf('Europe/Berlin', YEARS);
    expect(berlin.filter((ms) => deYear(ms) !== plainDay('Europe/Berlin', ms).year)).toEqual([]);
    expect(berlin.filter((ms) => taxYearOf('de', ms) !== taxYearsOf('de', ms, ms + 1)[0]!.label)).toEqual([]);
    const london = instantsOf('Europe/London', YEARS);
    const wrong = london.filter((ms) => {
      const day = DateTime.fromMillis(ms, { zone: 'Europe/London' });
      const startYear = day.month > 4 || (day.month === 4 && day.day >= 6) ? day.year : day.year - 1;
      return (
        ukDate(ms) !== plainUkDate(ms) ||
        ukDayOrdinal(ms) !== plainOrdinal(plainUkDate(ms)!) ||
        ukTaxYear(ms) !== `${startYear}-${String((startYear + 1) % 100).padStart(2, '0')}` ||
        taxYearOf('uk', ms) !== taxYearsOf('uk', ms, ms + 1)[0]!.label
      );
    });
    expect(wrong).toEqual([]);
    expect(ukTaxYear(DateTime.fromISO('2025-04-05T23:59', { zone: 'Europe/London' }).toMillis())).toBe('2024-25');
    expect(ukTaxYear(DateTime.fromISO('2025-04-06T00:00', { zone: 'Europe/London' }).toMillis())).toBe('2025-26');
  });
});

describe('localTime: toISO written as the format writes it', () => {
  for (const zone of ['UTC', 'Europe/Berlin', 'Europe/London', 'America/St_Johns', 'Asia/Kathmandu', 'Etc/GMT+5']) {
    it(`is toFormat's text in ${zone}`, () => {
      const instants = instantsOf(zone, YEARS);
      // Twice: the second time from memory.
      for (let pass = 0; pass < 2; pass++) {
        expect(instants.filter((ms) => localTime(ms, zone) !== plainLocalTime(ms, zone))).toEqual([]);
      }
    });
  }

  it("writes UTC's offset +00:00, never Z, and years outside 0-9999 as the format does", () => {
    const at = DateTime.utc(2026, 5, 1, 10).toMillis();
    expect(localTime(at, 'UTC')).toBe('2026-05-01T10:00:00.000+00:00');
    expect(localTime(at, 'Europe/Berlin')).toBe('2026-05-01T12:00:00.000+02:00');
    for (const ms of [DateTime.utc(10_000, 1, 1).toMillis(), DateTime.utc(-1, 6, 1).toMillis(), 0, -1]) {
      for (const zone of ['UTC', 'Europe/Berlin']) expect(localTime(ms, zone)).toBe(plainLocalTime(ms, zone));
    }
    expect(localTime(at, 'Not/AZone')).toBe(plainLocalTime(at, 'Not/AZone'));
  });
});
