import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';

import { wholeUnits } from '../../src/accounting/gains/filing-rounding.ts';
import { taxYearOf, taxYearsOf, wholeTaxYears } from '../../src/accounting/gains/tax-years.ts';

const ms = (iso: string) => Date.parse(iso);

describe('tax years (HMRC "Tax year": 6 April to 5 April; EStG section 2 (7): the calendar year)', () => {
  it('counts 00:30 on 6 April in London (23:30 UTC on 5 April) in the new UK tax year', () => {
    expect(taxYearOf('uk', ms('2024-04-05T22:59:59.999Z'))).toBe('2023-24');
    expect(taxYearOf('uk', ms('2024-04-05T23:00:00Z'))).toBe('2024-25');
  });

  it('counts 00:30 on 1 January in Berlin (23:30 UTC on 31 December) in the new German year', () => {
    expect(taxYearOf('de', ms('2024-12-31T22:59:59.999Z'))).toBe('2024');
    expect(taxYearOf('de', ms('2024-12-31T23:00:00Z'))).toBe('2025');
  });

  it('marks a year complete only when the period holds all of it, in the year’s own zone', () => {
    // 2024-04-06 to 2025-04-05 in London: exactly tax year 2024-25.
    expect(taxYearsOf('uk', ms('2024-04-05T23:00:00Z'), ms('2025-04-05T23:00:00Z'))).toEqual([
      { label: '2024-25', startMs: ms('2024-04-05T23:00:00Z'), endMs: ms('2025-04-05T23:00:00Z'), complete: true },
    ]);
    // The same dates in UTC miss the first hour of 2024-25 and reach an hour into 2025-26.
    const utc = taxYearsOf('uk', ms('2024-04-06T00:00:00Z'), ms('2025-04-06T00:00:00Z'));
    expect(utc.map((y) => [y.label, y.complete])).toEqual([
      ['2024-25', false],
      ['2025-26', false],
    ]);
    expect(wholeTaxYears('de', ms('2022-12-31T23:00:00Z'), ms('2024-12-31T23:00:00Z'))).toBe(true);
    expect(wholeTaxYears('de', ms('2024-06-30T22:00:00Z'), ms('2024-09-30T22:00:00Z'))).toBe(false);
  });
});

describe('whole units for the return (SA100: round down income, round up expenses)', () => {
  it('rounds down toward minus infinity and up toward plus infinity, never half-way', () => {
    expect(['1151.81', '1151.01', '-150.02', '0.4'].map((v) => wholeUnits(new Decimal(v), 'down'))).toEqual([
      '1151',
      '1151',
      '-151',
      '0',
    ]);
    expect(['1000.25', '1000', '-0.5', '150.02'].map((v) => wholeUnits(new Decimal(v), 'up'))).toEqual([
      '1001',
      '1000',
      '0',
      '151',
    ]);
  });
});
