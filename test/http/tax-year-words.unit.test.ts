import { describe, expect, it } from 'vitest';

import { taxYearsOf } from '../../src/accounting/gains/tax-years.ts';
import { amountWords, taxYearWords } from '../../src/http/tax-year-words.ts';

describe('tax years and amounts in an accountant’s words', () => {
  it('names a UK tax year by its first and last London day, a German one by its calendar year', () => {
    // HMRC: a tax year runs 6 April to 5 April; EStG section 2 (7): the calendar year.
    const at = Date.parse('2025-12-01T12:00:00Z');
    expect(taxYearWords('uk', taxYearsOf('uk', at, at + 1)[0]!)).toBe('tax year 2025-26 (6 Apr 2025 - 5 Apr 2026)');
    expect(taxYearWords('de', taxYearsOf('de', at, at + 1)[0]!)).toBe('calendar year 2025 (1 Jan - 31 Dec 2025)');
  });

  it('adds the currency sign and thousands separators and leaves the digits as the file has them', () => {
    expect(amountWords('1151', 'GBP')).toBe('£1,151');
    expect(amountWords('-1234567.125', 'EUR')).toBe('-€1,234,567.125');
    expect(amountWords('0', 'GBP')).toBe('£0');
    expect(amountWords('49.25', 'USDT')).toBe('49.25 USDT');
  });
});
