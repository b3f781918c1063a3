import { describe, expect, it } from 'vitest';

import { coinAmountWords, momentWords, moneyWords, unknownWords } from '../../src/http/tax-year-words.ts';
import { type YearFacts, yearState } from '../../src/http/year-state.ts';

const whole: YearFacts = {
  method: 'uk',
  filing: { complete: 'true', unpriced_disposals: '0', unknown_cost_proceeds: '0' },
  total: { complete: 'true', unpriced_disposals: '0', unknown_cost_proceeds: '0' },
  futures: [{ unpriced_futures_records: '0' }],
  recordsMissing: false,
};

describe('a tax year in one word, from the summary’s own cells', () => {
  it('is partial when the summary says part of a year or the records are not all read, before anything else', () => {
    expect(yearState(whole)).toBe('complete');
    expect(yearState({ ...whole, recordsMissing: true })).toBe('partial');
    expect(yearState({ ...whole, filing: { ...whole.filing, complete: 'false' } })).toBe('partial');
    expect(yearState({ ...whole, recordsMissing: true, total: { ...whole.total, unpriced_disposals: '3' } })).toBe(
      'partial',
    );
  });

  it('is undecided when a whole year depends on a value nobody knows', () => {
    expect(yearState({ ...whole, total: { ...whole.total, unpriced_disposals: '3' } })).toBe('undecided');
    expect(yearState({ ...whole, total: { ...whole.total, unknown_cost_proceeds: '0.0001' } })).toBe('undecided');
    expect(yearState({ ...whole, futures: [{ unpriced_futures_records: '2' }] })).toBe('undecided');
    const de: YearFacts = {
      ...whole,
      method: 'de',
      filing: { complete: 'true' },
      total: { complete: 'true', unpriced_matches: '0', unknown_cost_proceeds: '0', below_freigrenze: 'undecided' },
    };
    expect(yearState(de)).toBe('undecided');
    expect(yearState({ ...de, total: { ...de.total, below_freigrenze: 'yes' } })).toBe('complete');
  });
});

describe('money, times and unknowns in words', () => {
  it('shows money to 2 decimals half up, whole figures whole, coins to 8 decimals at most', () => {
    expect(moneyWords('1151', 'GBP')).toBe('£1,151');
    expect(moneyWords('1234567.125', 'EUR')).toBe('€1,234,567.13');
    expect(moneyWords('-0.001', 'GBP')).toBe('£0.00');
    expect(coinAmountWords('49.2549', 'USDT')).toBe('49.25 USDT');
    expect(coinAmountWords('0.012345678912', 'BTC')).toBe('0.01234568 BTC');
  });

  it('writes a UK instant in London time, a German one in Berlin time, and an unknown as unknown (N)', () => {
    const summer = Date.parse('2025-07-01T10:00:00Z');
    expect(momentWords('uk', summer)).toBe('1 Jul 2025, 11:00 London time');
    expect(momentWords('de', summer)).toBe('1 Jul 2025, 12:00 Berlin time');
    expect(unknownWords('1', ['sale', 'sales'])).toBe('unknown (1 sale)');
    expect(unknownWords(247, ['sale', 'sales'])).toBe('unknown (247 sales)');
  });
});
