import { Decimal } from 'decimal.js';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';

import { memoryPriceBook } from '../../src/accounting/prices/memory-price-book.ts';
import { RATE_CARRY_DAYS } from '../../src/accounting/prices/rate-carry.ts';

/*
 * Issue 42 item 5: the Bank of England and the ECB publish on working days only. A day without a
 * rate is valued with the last rate published on or before it, at most RATE_CARRY_DAYS (4) days
 * back: HMRC asks for "an appropriate valuation ... using a consistent methodology" (CRYPTO23000). Easter 2026 is the longest run without a publication: Thursday 2 April's rate
 * values Good Friday, the weekend and Easter Monday; Tuesday 7 April has its own.
 */
const london = (iso: string) => DateTime.fromISO(iso, { zone: 'Europe/London' }).toJSDate();
// A BoE-like series imported with --zone Europe/London: each date's rate at the date's first instant.
const rate = (date: string, price: string, source = 'boe') => ({
  at: london(`${date}T00:00`),
  base: 'USDT',
  quote: 'GBP',
  price,
  source,
});
const ONE = new Decimal(1);

describe('rates on days without one (issue 42 item 5)', () => {
  it('values Good Friday to Easter Monday with Thursday’s rate, marked carried, and Tuesday with its own', async () => {
    const book = memoryPriceBook('GBP', [rate('2026-04-02', '0.80'), rate('2026-04-07', '0.81')]);
    const thursday = await book.value('USDT', ONE, london('2026-04-02T15:00'));
    expect(thursday?.price.toString()).toBe('0.8');
    expect(thursday?.source).toBe('import:boe');
    // Within PRICE_TOLERANCE (36 h) a rate is not carried: Friday morning reads it as before.
    expect((await book.value('USDT', ONE, london('2026-04-03T09:00')))?.source).toBe('import:boe');
    for (const instant of ['2026-04-03T13:00', '2026-04-04T12:00', '2026-04-05T18:00', '2026-04-06T23:59']) {
      const held = await book.value('USDT', ONE, london(instant));
      expect(held?.price.toString(), instant).toBe('0.8');
      expect(held?.source, instant).toBe('import:boe~carried');
      expect(held?.priceAt.getTime(), instant).toBe(london('2026-04-02T00:00').getTime());
    }
    const tuesday = await book.value('USDT', ONE, london('2026-04-07T00:00'));
    expect(tuesday?.price.toString()).toBe('0.81');
    expect(tuesday?.source).toBe('import:boe');
  });

  it(`goes back at most ${RATE_CARRY_DAYS} days: a series missing a working day leaves the fifth day unpriced`, async () => {
    const book = memoryPriceBook('GBP', [rate('2026-04-02', '0.80')]);
    expect((await book.value('USDT', ONE, london('2026-04-06T23:59:59')))?.price.toString()).toBe('0.8');
    expect(await book.value('USDT', ONE, london('2026-04-07T00:00'))).toBeNull();
  });

  it('never uses a later rate for an earlier day', async () => {
    const book = memoryPriceBook('GBP', [rate('2026-04-07', '0.81')]);
    expect(await book.value('USDT', ONE, london('2026-04-06T12:00'))).toBeNull();
  });

  it('carries no coin close between coins, and no trade point: the tolerance alone (36 h)', async () => {
    const day = (d: string) => new Date(`${d}T00:00:00Z`);
    const closes = memoryPriceBook('USDT', [
      { at: day('2026-04-02'), base: 'BTC', quote: 'USDT', price: '80000', source: 'vendor' },
    ]);
    expect(await closes.value('BTC', ONE, day('2026-04-03'))).not.toBeNull();
    expect(await closes.value('BTC', ONE, day('2026-04-04'))).toBeNull();
    const trades = memoryPriceBook('GBP', [
      { at: day('2026-04-02'), base: 'USDT', quote: 'GBP', price: '0.8', source: 'trade' },
    ]);
    expect(await trades.value('USDT', ONE, day('2026-04-04'))).toBeNull();
  });

  it('carries the fiat leg of a value through a quote: BTC/USDT today x USDT/GBP of Thursday', async () => {
    const sunday = london('2026-04-05T10:00');
    const book = memoryPriceBook('GBP', [
      rate('2026-04-02', '0.80'),
      { at: london('2026-04-05T00:00'), base: 'BTC', quote: 'USDT', price: '80000', source: 'vendor' },
    ]);
    const value = await book.value('BTC', ONE, sunday);
    expect(value?.value.toString()).toBe('64000');
    expect(value?.source).toBe('import:vendor*import:boe~carried');
  });
});
