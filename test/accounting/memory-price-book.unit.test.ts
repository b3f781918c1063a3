import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';

import { memoryPriceBook } from '../../src/accounting/prices/memory-price-book.ts';
import { ValidationError } from '../../src/errors/index.ts';

const HOUR = 3_600_000;
const t0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => new Date(t0 + ms);
const point = (ms: number, base: string, quote: string, price: string, source = 'trade') => ({
  at: at(ms),
  base,
  quote,
  price,
  source,
});

describe('memoryPriceBook', () => {
  it('values a coin from the nearest earlier point of the direct pair, exactly', async () => {
    const book = memoryPriceBook('USDT', [
      point(0, 'BTC', 'USDT', '60000'),
      point(2 * HOUR, 'BTC', 'USDT', '61000.5'),
      point(5 * HOUR, 'BTC', 'USDT', '70000'),
    ]);
    const v = await book.value('BTC', new Decimal('0.123456789012345678'), at(3 * HOUR));
    expect(v?.price.toString()).toBe('61000.5');
    expect(v?.value.toString()).toBe('7530.925858147592530839');
    expect(v?.priceAt.getTime()).toBe(t0 + 2 * HOUR);
    expect(v?.source).toBe('trade');
  });

  it('inverts currency/coin, rounding 1/p to 28 significant digits half to even', async () => {
    const book = memoryPriceBook('USDT', [point(0, 'USDT', 'EUR', '0.92', 'ecb')]);
    const v = await book.value('EUR', new Decimal(100), at(HOUR));
    expect(v?.price.toString()).toBe('1.086956521739130434782608696');
    expect(v?.value.toString()).toBe('108.6956521739130434782608696');
    expect(v?.source).toBe('import:ecb');
  });

  it('goes through USDT before any other quote when no direct pair is fresh, and reports the older leg', async () => {
    const book = memoryPriceBook('EUR', [
      point(0, 'ETH', 'BTC', '0.05'),
      point(0, 'BTC', 'EUR', '50000', 'ecb'),
      point(HOUR, 'ETH', 'USDT', '3000'),
      point(2 * HOUR, 'EUR', 'USDT', '1.25', 'ecb'),
    ]);
    const v = await book.value('ETH', new Decimal(2), at(3 * HOUR));
    expect(v?.price.toString()).toBe('2400');
    expect(v?.value.toString()).toBe('4800');
    expect(v?.priceAt.getTime()).toBe(t0 + HOUR);
    expect(v?.source).toBe('trade*import:ecb');
  });

  it('falls back to another quote (alphabetical after the preferred ones) when USDT legs are missing', async () => {
    const book = memoryPriceBook('EUR', [point(0, 'SOL', 'XYZ', '2'), point(0, 'XYZ', 'EUR', '3', 'ecb')]);
    expect((await book.value('SOL', new Decimal(1), at(0)))?.price.toString()).toBe('6');
  });

  it('accepts a point exactly the tolerance old and refuses one 1 ms older (unpriced is null)', async () => {
    const book = memoryPriceBook('USDT', [point(0, 'BTC', 'USDT', '60000')], { toleranceMs: 36 * HOUR });
    expect((await book.value('BTC', new Decimal(1), at(36 * HOUR)))?.value.toString()).toBe('60000');
    expect(await book.value('BTC', new Decimal(1), at(36 * HOUR + 1))).toBeNull();
  });

  it('never uses a point later than the instant valued', async () => {
    const book = memoryPriceBook('USDT', [point(HOUR, 'BTC', 'USDT', '60000')]);
    expect(await book.value('BTC', new Decimal(1), at(HOUR - 1))).toBeNull();
    expect((await book.value('BTC', new Decimal(1), at(HOUR)))?.price.toString()).toBe('60000');
  });

  it('returns null for a coin nobody priced, and the currency itself at par', async () => {
    const book = memoryPriceBook('USDT', [point(0, 'BTC', 'USDT', '60000')]);
    expect(await book.value('DOGE', new Decimal(5), at(0))).toBeNull();
    expect(await book.value('', new Decimal(5), at(0))).toBeNull();
    expect((await book.value(' btc ', new Decimal(1), at(0)))?.price.toString()).toBe('60000');
    const par = await book.value('usdt', new Decimal('12.5'), at(0));
    expect(par?.value.toString()).toBe('12.5');
    expect(par?.price.toString()).toBe('1');
    expect(par?.source).toBe('par');
  });

  it('at one instant prefers trade over imports, then imports by source name, whatever the given order', async () => {
    const book = memoryPriceBook('USDT', [
      point(0, 'BTC', 'USDT', '3', 'zeta'),
      point(0, 'BTC', 'USDT', '2', 'alpha'),
      point(HOUR, 'BTC', 'USDT', '5', 'alpha'),
      point(HOUR, 'BTC', 'USDT', '4'),
    ]);
    expect((await book.value('BTC', new Decimal(1), at(0)))?.source).toBe('import:alpha');
    expect((await book.value('BTC', new Decimal(1), at(HOUR)))?.price.toString()).toBe('4');
  });

  it('takes the later of the direct and the inverted pair, the direct one at a tie', async () => {
    const book = memoryPriceBook('USDT', [
      point(0, 'BTC', 'USDT', '100'),
      point(0, 'USDT', 'BTC', '0.02'),
      point(HOUR, 'USDT', 'BTC', '0.04'),
    ]);
    expect((await book.value('BTC', new Decimal(1), at(0)))?.price.toString()).toBe('100');
    expect((await book.value('BTC', new Decimal(1), at(HOUR)))?.price.toString()).toBe('25');
  });

  it('throws when called earlier than the previous call', async () => {
    const book = memoryPriceBook('USDT', [point(0, 'BTC', 'USDT', '1')]);
    await book.value('BTC', new Decimal(1), at(HOUR));
    await book.value('BTC', new Decimal(1), at(HOUR));
    await expect(book.value('BTC', new Decimal(1), at(HOUR - 1))).rejects.toThrow(ValidationError);
  });

  it('refuses a bad point with a typed error naming it', () => {
    expect(() => memoryPriceBook('USDT', [point(0, 'BTC', 'USDT', '-1')])).toThrow(/points\[0\]\.price/);
    expect(() => memoryPriceBook('USDT', [point(0, 'BTC', 'BTC', '1')])).toThrow(/points\[0\]\.quote/);
    expect(() => memoryPriceBook('USDT', [point(0, 'BTC', 'USDT', '0')])).toThrow(ValidationError);
  });
});
