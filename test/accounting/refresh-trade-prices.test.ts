import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { refreshTradePrices } from '../../src/accounting/prices/refresh-trade-prices.ts';
import { insertAccount, insertSpot } from '../export/seed.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const db = useTestDatabase('tradeprices');
const t = (minute: number) => Date.UTC(2026, 2, 1, 0, minute);

let client: pg.Client;
let account: string;

async function points() {
  const { rows } = await client.query<{ time: Date; base: string; quote: string; price: string; source: string }>(
    `SELECT time, base, quote, price::text AS price, source FROM price WHERE account_id = $1 ORDER BY time, base`,
    [account],
  );
  return rows.map((row) => ({ ...row, time: row.time.toISOString() }));
}

beforeAll(async () => {
  account = await insertAccount(db.url, 'trades');
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await insertSpot(db.url, account, [
    // A sale of BTC for USDT: price = gross USDT / BTC, the fee (on the received leg) left out.
    { recordId: '1', coin: 'BTC', spotTaxType: 'Sell', amount: '-0.5', bizOrderId: 'o1', ts: t(0) },
    { recordId: '2', coin: 'USDT', spotTaxType: 'Sell', amount: '30000', fee: '-30', bizOrderId: 'o1', ts: t(0) },
    // A purchase the other way round still gives BTC/USDT; two fills of the same instant are one point.
    { recordId: '3', coin: 'USDT', spotTaxType: 'Buy', amount: '-100', bizOrderId: 'o2', ts: t(1) },
    { recordId: '4', coin: 'USDT', spotTaxType: 'Buy', amount: '-200', bizOrderId: 'o2', ts: t(1) },
    { recordId: '5', coin: 'BTC', spotTaxType: 'Buy', amount: '0.001', bizOrderId: 'o2', ts: t(1) },
    { recordId: '6', coin: 'BTC', spotTaxType: 'Buy', amount: '0.004', bizOrderId: 'o2', ts: t(1) },
    // Two listed quotes: ETH/BTC (BTC ranks before ETH), a quotient rounded to 28 digits.
    { recordId: '7', coin: 'BTC', spotTaxType: 'Buy', amount: '-3', bizOrderId: 'o3', ts: t(2) },
    { recordId: '8', coin: 'ETH', spotTaxType: 'Buy', amount: '7', bizOrderId: 'o3', ts: t(2) },
    // Neither listed: alphabetical, DOGE/SOL.
    { recordId: '9', coin: 'SOL', spotTaxType: 'Sell', amount: '-2', bizOrderId: 'o4', ts: t(3) },
    { recordId: '10', coin: 'DOGE', spotTaxType: 'Sell', amount: '1000', bizOrderId: 'o4', ts: t(3) },
    // Both legs with a fee: the sent amount includes its fee, so no point.
    { recordId: '11', coin: 'BGB', spotTaxType: 'Sell', amount: '-10', fee: '-0.01', bizOrderId: 'o5', ts: t(4) },
    { recordId: '12', coin: 'USDT', spotTaxType: 'Sell', amount: '50', fee: '-0.05', bizOrderId: 'o5', ts: t(4) },
    // An unpaired leg and a deposit: no point.
    { recordId: '13', coin: 'XRP', spotTaxType: 'Sell', amount: '-5', bizOrderId: 'o6', ts: t(5) },
    { recordId: '14', coin: 'ADA', spotTaxType: 'Deposit', amount: '5', ts: t(6) },
  ]);
});

afterAll(async () => {
  await client.end();
});

describe('refreshTradePrices', () => {
  it("writes one point per trade instant and pair, oriented base/quote, from the account's gross fill amounts", async () => {
    expect(await refreshTradePrices(client, account, { full: true })).toEqual({
      inserted: 4,
      updated: 0,
      unchanged: 0,
      removed: 0,
    });
    expect(await points()).toEqual([
      { time: '2026-03-01T00:00:00.000Z', base: 'BTC', quote: 'USDT', price: '60000', source: 'trade' },
      { time: '2026-03-01T00:01:00.000Z', base: 'BTC', quote: 'USDT', price: '60000', source: 'trade' },
      {
        time: '2026-03-01T00:02:00.000Z',
        base: 'ETH',
        quote: 'BTC',
        price: '0.4285714285714285714285714286',
        source: 'trade',
      },
      { time: '2026-03-01T00:03:00.000Z', base: 'DOGE', quote: 'SOL', price: '0.002', source: 'trade' },
    ]);
  });

  it('is idempotent, and rewrites only a point whose fills changed', async () => {
    expect(await refreshTradePrices(client, account, { full: true })).toEqual({
      inserted: 0,
      updated: 0,
      unchanged: 4,
      removed: 0,
    });
    // A late third fill of order o1 at the same instant moves that point's volume-weighted price.
    await insertSpot(db.url, account, [
      { recordId: '15', coin: 'BTC', spotTaxType: 'Sell', amount: '-0.5', bizOrderId: 'o7', ts: t(0) },
      { recordId: '16', coin: 'USDT', spotTaxType: 'Sell', amount: '31000', bizOrderId: 'o7', ts: t(0) },
    ]);
    expect(await refreshTradePrices(client, account, { full: true })).toEqual({
      inserted: 0,
      updated: 1,
      unchanged: 3,
      removed: 0,
    });
    expect((await points())[0]?.price).toBe('61000');
  });

  it("deletes a point no trade implies any more, and only this account's", async () => {
    // A point the trades do not imply (as if an order had paired differently before) ...
    await client.query(
      `INSERT INTO price (time, base, quote, price, source, account_id) VALUES ($1, 'BTC', 'USDT', '1', 'trade', $2)`,
      [new Date(t(30)), account],
    );
    // ... and an import at the same instant, which a refresh never touches.
    await client.query(
      `INSERT INTO price (time, base, quote, price, source, account_id) VALUES ($1, 'BTC', 'USDT', '2', 'daily', NULL)`,
      [new Date(t(30))],
    );
    expect(await refreshTradePrices(client, account, { full: true })).toEqual({
      inserted: 0,
      updated: 0,
      unchanged: 4,
      removed: 1,
    });
    expect(await points()).toHaveLength(4);
    const { rows } = await client.query(`SELECT 1 FROM price WHERE account_id IS NULL`);
    expect(rows).toHaveLength(1);
  });

  it('refuses an account id that is not a UUID, before touching the database', async () => {
    await expect(refreshTradePrices(client, 'nope')).rejects.toThrow(/accountId/);
  });
});
