import { describe, expect, it } from 'vitest';

import { ValidationError } from '../../src/errors/index.ts';
import { sa108Layout } from '../../src/export/pack/pack-forms.ts';
import { packBaseName, packJobId, parsePackYear } from '../../src/export/pack/pack-request.ts';

const NOW = Date.parse('2025-06-01T12:00:00Z');

describe('the tax year of a pack', () => {
  it('a UK year runs 6 April to 5 April; a German one is the calendar year; the year still running ends today', () => {
    expect(parsePackYear('uk', '2024-25', NOW)).toEqual({
      method: 'uk',
      label: '2024-25',
      from: '2024-04-06',
      to: '2025-04-05',
      tz: 'Europe/London',
    });
    expect(parsePackYear('de', '2024', NOW)).toMatchObject({
      from: '2024-01-01',
      to: '2024-12-31',
      tz: 'Europe/Berlin',
    });
    expect(parsePackYear('uk', '2025-26', NOW)).toMatchObject({ from: '2025-04-06', to: '2025-06-01' });
    expect(parsePackYear('de', '2025', NOW)).toMatchObject({ from: '2025-01-01', to: '2025-06-01' });
  });

  it('a year not begun, a label of the other method or a wrong method is a ValidationError naming the field', () => {
    const cases: Array<[string | undefined, string | undefined, RegExp]> = [
      ['uk', '2026-27', /taxYear: must have begun/],
      ['uk', '2024', /taxYear: must be a UK tax year such as 2024-25/],
      ['uk', '2024-26', /taxYear: must be a UK tax year/],
      ['de', '2024-25', /taxYear: must be a calendar year such as 2024/],
      ['de', undefined, /taxYear: must be a calendar year/],
      ['de', '0999', /taxYear: must be a calendar year/],
      ['fifo', '2024', /method: must be uk or de/],
      [undefined, '2024', /method: must be uk or de/],
    ];
    for (const [method, year, message] of cases) {
      expect(() => parsePackYear(method, year, NOW), `${method} ${year}`).toThrow(ValidationError);
      expect(() => parsePackYear(method, year, NOW), `${method} ${year}`).toThrow(message);
    }
  });

  it('names the pack and its job by method and year; a partial pack says so in its name', () => {
    const year = { method: 'uk', label: '2024-25' } as const;
    expect(packBaseName(year, false)).toBe('tax-year-pack_uk_2024-25');
    expect(packBaseName(year, true)).toBe('tax-year-pack_uk_2024-25_PARTIAL');
    expect(packJobId('c6a41e4b-1ba8-4b49-8662-8abf9a9f2c9c', year)).toBe(
      'pack.c6a41e4b-1ba8-4b49-8662-8abf9a9f2c9c.uk.2024-25',
    );
  });

  it('SA108 numbers its cryptoasset boxes from 2024-25 on; before, the labels stand without numbers', () => {
    expect(sa108Layout('2024-25').fields.map((f) => f.number)).toEqual(['13.1', '13.2', '13.3', '13.4', '13.5']);
    expect(sa108Layout('2023-24').fields.every((f) => f.number === '')).toBe(true);
    expect(sa108Layout('2023-24').title).toContain('Other property, assets and gains');
  });
});
