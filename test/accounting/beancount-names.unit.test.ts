import { describe, expect, it } from 'vitest';

import { accountComponent, beancountCurrency, beancountString } from '../../src/export/journal/beancount-names.ts';

// beancount 2's lexer: a currency, and an account name component.
const CURRENCY = /^[A-Z](?:[A-Z0-9'._-]{0,22}[A-Z0-9])?$/;
const COMPONENT = /^[A-Z0-9][A-Za-z0-9-]*$/;

describe('beancount names', () => {
  it('keeps a coin that is a valid currency as it is', () => {
    for (const coin of ['BTC', 'USDT', 'B', 'ETH2.0', "A'B", 'X_Y-Z9', 'ABCDEFGHIJKLMNOPQRSTUVWX']) {
      expect(beancountCurrency(coin)).toBe(coin);
    }
  });

  it('maps every other coin to a valid currency, deterministically and apart from the valid ones', () => {
    expect(beancountCurrency('1INCH')).toMatch(/^X1INCH-[0-9A-F]{6}$/);
    expect(beancountCurrency('1INCH')).toBe(beancountCurrency('1INCH'));
    expect(beancountCurrency('btc')).toMatch(/^BTC-[0-9A-F]{6}$/);
    expect(beancountCurrency('btc')).not.toBe(beancountCurrency('Btc'));
    const samples = [
      'usdc.e',
      'A-',
      'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
      'ÄÖÜ',
      '€',
      '',
      ' ',
      'a b',
      '1',
      '-X',
      'X.',
      '💰COIN',
    ];
    const mapped = samples.map(beancountCurrency);
    for (const currency of mapped) expect(currency).toMatch(CURRENCY);
    expect(new Set(mapped).size).toBe(samples.length);
  });

  it('makes account name components of currencies, keeping apart those that differ only in punctuation', () => {
    expect(accountComponent('BTC')).toBe('BTC');
    expect(accountComponent('X1INCH-0A1B2C')).toBe('X1INCH-0A1B2C');
    const dotted = accountComponent('A.B');
    expect(dotted).toMatch(COMPONENT);
    expect(dotted).not.toBe(accountComponent('A-B'));
    expect(accountComponent("A'B_C")).toMatch(COMPONENT);
  });

  it('writes string literals with quotes and backslashes escaped and no line breaks', () => {
    expect(beancountString('plain')).toBe('"plain"');
    expect(beancountString('say "hi" \\ bye')).toBe('"say \\"hi\\" \\\\ bye"');
    expect(beancountString('two\nlines\ttab')).toBe('"two lines tab"');
  });
});
