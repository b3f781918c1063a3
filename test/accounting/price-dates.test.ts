import { Readable } from 'node:stream';

import { Decimal } from 'decimal.js';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { importPrices } from '../../src/accounting/prices/import-prices.ts';
import { openPriceBook } from '../../src/accounting/prices/open-price-book.ts';
import { RATE_CARRY_DAYS } from '../../src/accounting/prices/rate-carry.ts';
import { ValidationError } from '../../src/errors/index.ts';
import { insertAccount } from '../export/seed.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

/**
 * Valuation on the transaction's day (issue 33, item 8). HMRC CRYPTO23000 ("Cryptoassets for
 * individuals: valuation"): a transaction without a pound sterling value is converted at "an
 * appropriate exchange rate", "using a consistent methodology"; HMRC's own monthly exchange rates
 * are published per calendar month. The BMF letter of 6 March 2025 values a transaction in euros at
 * its time. Reading: a daily rate values the transactions of its date, on the London date for uk
 * and the Berlin date for de; a monthly rate every day of its month. The tolerance stays (36 h
 * here): nothing is guessed.
 */
const db = useTestDatabase('pricedates');
let client: pg.Client;
let accountId: string;
const TOLERANCE = 36 * 3_600_000;

const csv = (text: string) => Readable.from([text]);

/** The rate (GBP or EUR per USDT) the book values 1 USDT with at each instant, or null. */
async function ratesAt(currency: string, instants: string[]): Promise<(string | null)[]> {
  const book = await openPriceBook(client, { accountId, currency, toleranceMs: TOLERANCE });
  try {
    const out: (string | null)[] = [];
    for (const at of instants) {
      const v = await book.value('USDT', new Decimal(1), new Date(at));
      out.push(v === null ? null : v.price.toFixed());
    }
    return out;
  } finally {
    await book.close();
  }
}

beforeAll(async () => {
  accountId = await insertAccount(db.url, 'prices');
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});
beforeEach(async () => {
  await client.query('DELETE FROM price');
});
afterAll(async () => {
  await client.end();
});

describe('a daily rate values the transactions of its own date', () => {
  it('uk: imported with --zone Europe/London, 2 July’s rate values 00:30 on 2 July in London (23:30 UTC on 1 July)', async () => {
    const file = 'date,base,quote,price,source\n2024-07-01,USDT,GBP,0.8,boe\n2024-07-02,USDT,GBP,0.9,boe\n';
    await importPrices(client, csv(file), { zone: 'Europe/London' });
    expect(
      await ratesAt('GBP', [
        '2024-06-30T23:30:00Z', // 1 July 00:30 in London: 1 July's rate
        '2024-07-01T22:59:59.999Z', // 1 July 23:59:59.999 in London: still 1 July's
        '2024-07-01T23:30:00Z', // 2 July 00:30 in London: 2 July's (no longer the day before's)
        '2024-07-02T10:00:00Z', // 2 July: 2 July's rate, where the end-of-day stamp gave 1 July's
      ]),
    ).toEqual(['0.8', '0.8', '0.9', '0.9']);
  });

  it('de: imported with --zone Europe/Berlin, 00:30 on 2 July in Berlin (22:30 UTC on 1 July) gets 2 July’s rate', async () => {
    const file = 'date,base,quote,price,source\n2024-07-01,USDT,EUR,0.91,ecb\n2024-07-02,USDT,EUR,0.92,ecb\n';
    await importPrices(client, csv(file), { zone: 'Europe/Berlin' });
    expect(await ratesAt('EUR', ['2024-07-01T21:59:00Z', '2024-07-01T22:30:00Z'])).toEqual(['0.91', '0.92']);
  });

  it('a date with no rate is valued from the last rate on or before it, at most RATE_CARRY_DAYS back, never guessed', async () => {
    const file = 'date,base,quote,price,source\n2024-07-01,USDT,GBP,0.8,boe\n';
    await importPrices(client, csv(file), { zone: 'Europe/London' });
    // 1 July 00:00 London is 30 June 23:00 UTC. Its rate values 1 July and the 4 days after it
    // (rate-carry.ts: the BoE publishes on working days only), up to 5 July 23:59:59.999 London;
    // never the instant before its own day, never after those days.
    expect(RATE_CARRY_DAYS).toBe(4);
    expect(
      await ratesAt('GBP', [
        '2024-06-30T22:59:59.999Z',
        '2024-07-02T11:00:00.001Z',
        '2024-07-05T22:59:59.999Z',
        '2024-07-05T23:00:00Z',
      ]),
    ).toEqual([null, '0.8', '0.8', null]);
  });
});

describe('prices import --period monthly: a month’s rate values its calendar month (HMRC’s monthly exchange rates)', () => {
  it('values every day of July with July’s rate and 1 August (London) with August’s; after August nothing', async () => {
    const file = 'date,base,quote,price\n2024-07,USDT,GBP,0.79\n2024-08,USDT,GBP,0.81\n';
    const result = await importPrices(client, csv(file), {
      source: 'hmrc-monthly',
      zone: 'Europe/London',
      period: 'monthly',
    });
    expect(result).toEqual({ rows: 2, points: 62, inserted: 62, updated: 0, unchanged: 0 });
    expect(
      await ratesAt('GBP', [
        '2024-07-01T00:00:00Z',
        '2024-07-15T12:00:00Z', // two weeks after the month's start: still July's, from its own day
        '2024-07-31T22:30:00Z', // 31 July 23:30 in London
        '2024-07-31T23:30:00Z', // 1 August 00:30 in London
        '2024-09-01T12:00:00Z', // September has no rate: 31 August's is carried (RATE_CARRY_DAYS)
        '2024-09-05T12:00:00Z', // beyond the 4 days after 31 August: unpriced
      ]),
    ).toEqual(['0.79', '0.79', '0.79', '0.81', '0.81', null]);
    // Idempotent like a daily import.
    expect(
      await importPrices(client, csv(file), { source: 'hmrc-monthly', zone: 'Europe/London', period: 'monthly' }),
    ).toMatchObject({
      inserted: 0,
      unchanged: 62,
    });
  });

  it('refuses a day in a monthly file, a time column, an unknown period or zone, naming the field', async () => {
    const refusal = async (text: string, options: Parameters<typeof importPrices>[2]) => {
      const error: unknown = await importPrices(client, csv(text), options).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      return (error as ValidationError).field;
    };
    expect(await refusal('date,base,quote,price,source\n2024-07-01,USDT,GBP,0.8,x\n', { period: 'monthly' })).toBe(
      'line 2, date',
    );
    expect(
      await refusal('time,base,quote,price,source\n2024-07-01T00:00:00Z,USDT,GBP,0.8,x\n', { period: 'monthly' }),
    ).toBe('line 1');
    expect(await refusal('date,base,quote,price,source\n', { period: 'weekly' as 'daily' })).toBe('--period');
    expect(await refusal('date,base,quote,price,source\n', { zone: 'Mars/Olympus' })).toBe('--zone');
    expect((await client.query('SELECT count(*)::int AS n FROM price')).rows[0].n).toBe(0);
  });
});
