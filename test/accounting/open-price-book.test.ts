import { Decimal } from 'decimal.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openPriceBook } from '../../src/accounting/prices/open-price-book.ts';
import { ValidationError } from '../../src/errors/index.ts';
import { insertAccount } from '../export/seed.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const db = useTestDatabase('openpricebook');
const HOUR = 3_600_000;
const TOLERANCE = 36 * HOUR;
const t0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => new Date(t0 + ms);

let client: pg.Client;
let mine: string;
let other: string;

async function insert(ms: number, base: string, quote: string, price: string, source: string, account: string | null) {
  await client.query(
    `INSERT INTO price (time, base, quote, price, source, account_id) VALUES ($1, $2, $3, $4, $5, $6)`,
    [at(ms), base, quote, price, source, account],
  );
}

beforeAll(async () => {
  mine = await insertAccount(db.url, 'mine');
  other = await insertAccount(db.url, 'other');
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await insert(0, 'BTC', 'USDT', '60000', 'trade', mine);
  await insert(0, 'BTC', 'USDT', '1', 'trade', other); // another account's fill: never seen
  await insert(HOUR, 'BTC', 'USDT', '99999', 'trade', other);
  await insert(0, 'USDT', 'EUR', '0.8', 'ecb', null);
  await insert(0, 'ETH', 'USDT', '3000', 'trade', mine);
  await insert(2 * HOUR, 'USD', 'BTC', '0.00002', 'daily', null);
});

afterAll(async () => {
  await client.end();
});

describe('openPriceBook', () => {
  it('values directly, inverted and through USDT, within the tolerance, from this account and imports only', async () => {
    const book = await openPriceBook(client, { accountId: mine, currency: 'USDT', toleranceMs: TOLERANCE });
    const btc = await book.value('BTC', new Decimal('0.5'), at(HOUR));
    expect(btc).toMatchObject({ source: 'trade', priceAt: at(0) });
    expect(btc?.value.toString()).toBe('30000');
    const eur = await book.value('EUR', new Decimal(8), at(HOUR));
    expect(eur?.value.toString()).toBe('10');
    expect(eur?.source).toBe('import:ecb');
    await book.close();

    const inEur = await openPriceBook(client, { accountId: mine, currency: 'EUR', toleranceMs: TOLERANCE });
    const eth = await inEur.value('ETH', new Decimal(1), at(HOUR));
    expect(eth?.price.toString()).toBe('2400');
    expect(eth?.source).toBe('trade*import:ecb');
    await inEur.close();
  });

  it('prices at exactly the tolerance, not 1 ms beyond; unpriced coins are null', async () => {
    const book = await openPriceBook(client, { accountId: mine, currency: 'USDT', toleranceMs: TOLERANCE });
    expect(await book.value('DOGE', new Decimal(1), at(0))).toBeNull();
    expect((await book.value('ETH', new Decimal(1), at(TOLERANCE)))?.value.toString()).toBe('3000');
    expect(await book.value('ETH', new Decimal(1), at(TOLERANCE + 1))).toBeNull();
    await book.close();
  });

  it('uses the later point of either orientation (USD/BTC inverted after BTC/USD is absent)', async () => {
    const book = await openPriceBook(client, { accountId: mine, currency: 'USD', toleranceMs: TOLERANCE });
    expect(await book.value('BTC', new Decimal(1), at(2 * HOUR - 1))).toBeNull();
    const btc = await book.value('BTC', new Decimal(1), at(2 * HOUR));
    expect(btc?.price.toString()).toBe('50000');
    expect(btc?.source).toBe('import:daily');
    await book.close();
  });

  it('throws when asked for an earlier instant than the previous call, and refuses a bad account id', async () => {
    const book = await openPriceBook(client, { accountId: mine, currency: 'USDT', toleranceMs: TOLERANCE });
    await book.value('BTC', new Decimal(1), at(HOUR));
    await expect(book.value('BTC', new Decimal(1), at(0))).rejects.toThrow(ValidationError);
    await expect(openPriceBook(client, { accountId: 'x', currency: 'USDT', toleranceMs: 1 })).rejects.toThrow(
      /accountId/,
    );
  });

  it('opened from an instant (a walk resumed from a gains checkpoint), answers as a book that read every point', async () => {
    const answer = (v: Awaited<ReturnType<Awaited<ReturnType<typeof openPriceBook>>['value']>>) =>
      v === null ? null : [v.value.toFixed(), v.price.toFixed(), v.source, v.priceAt.getTime()];
    // A point exactly the tolerance before `fromMs` still prices `fromMs`; 1 ms later it is too old.
    for (const fromMs of [HOUR, TOLERANCE, TOLERANCE + 1]) {
      for (const currency of ['USDT', 'EUR', 'USD']) {
        const full = await openPriceBook(client, { accountId: mine, currency, toleranceMs: TOLERANCE });
        const from = await openPriceBook(client, {
          accountId: mine,
          currency,
          toleranceMs: TOLERANCE,
          fromMs: t0 + fromMs,
        });
        const instants = [fromMs, fromMs + 1, TOLERANCE, TOLERANCE + 1, TOLERANCE + 2 * HOUR, TOLERANCE + 2 * HOUR + 1]
          .filter((ms) => ms >= fromMs)
          .sort((a, b) => a - b);
        for (const ms of instants) {
          for (const coin of ['BTC', 'ETH', 'EUR', 'USDT']) {
            expect(answer(await from.value(coin, new Decimal(2), at(ms)))).toEqual(
              answer(await full.value(coin, new Decimal(2), at(ms))),
            );
          }
        }
        await full.close();
        await from.close();
      }
    }
    const from = await openPriceBook(client, {
      accountId: mine,
      currency: 'USDT',
      toleranceMs: TOLERANCE,
      fromMs: t0 + TOLERANCE,
    });
    expect((await from.value('ETH', new Decimal(1), at(TOLERANCE)))?.value.toString()).toBe('3000');
    await from.close();
  });

  it('walks many pages in order, points of one instant included, and each page is a complete statement', async () => {
    // 5,000 SOL points 1 s apart, two sources at every instant: pages of 2,000 split instants.
    await client.query(
      `INSERT INTO price (time, base, quote, price, source, account_id)
       SELECT $1::timestamptz + (n * interval '1 second'), 'SOL', 'USDT', n, s, NULL
         FROM generate_series(1, 5000) AS n, unnest(ARRAY['a', 'b']) AS s`,
      [at(10 * HOUR)],
    );
    const book = await openPriceBook(client, { accountId: mine, currency: 'USDT', toleranceMs: 0 });
    for (const n of [1, 1000, 1001, 2500, 4999, 5000]) {
      const v = await book.value('SOL', new Decimal(1), at(10 * HOUR + n * 1000));
      expect(v?.price.toString()).toBe(String(n));
      expect(v?.source).toBe('import:a');
      // The connection is free between calls: another statement runs at once.
      expect((await client.query('SELECT 1 AS one')).rows[0]).toEqual({ one: 1 });
    }
    expect(await book.value('SOL', new Decimal(1), at(10 * HOUR + 5000 * 1000 + 1))).toBeNull();
    await book.close();
  });

  it('pages by the numeric id: a page boundary inside one instant neither skips nor repeats a point', async () => {
    // 2,001 pairs at one instant, ids 99999 and 100000..101999: ordered as text, 99999 would come
    // after the first page's last id and be skipped.
    await client.query(
      `INSERT INTO price (id, time, base, quote, price, source, account_id)
       SELECT 99999 + n, $1::timestamptz, 'P' || n, 'USDT', n + 1, 'x', NULL FROM generate_series(0, 2000) AS n`,
      [at(20 * HOUR)],
    );
    const book = await openPriceBook(client, { accountId: mine, currency: 'USDT', toleranceMs: 0 });
    for (let n = 0; n <= 2000; n += 1) {
      expect((await book.value(`P${n}`, new Decimal(1), at(20 * HOUR)))?.price.toString()).toBe(String(n + 1));
    }
    await book.close();
  });
});
