import { PassThrough, Readable } from 'node:stream';

import type { Decimal } from 'decimal.js';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';

import { unknownCostArrivals } from '../../../src/accounting/gains/unknown-cost-arrivals.ts';
import { type LotSink, walkHistory } from '../../../src/accounting/gains/walk-history.ts';
import { importPrices } from '../../../src/accounting/prices/import-prices.ts';
import { readLedgerEntries } from '../../../src/booking/ledger-entry-cursor.ts';
import { parseExportRequest, reportParams } from '../../../src/export/export-request.ts';
import { reportFor } from '../../../src/export/reports/index.ts';
import { streamReport } from '../../../src/export/stream-report.ts';
import { unknownCosts } from '../../../src/http/unknown-costs.ts';
import { insertAccount, insertFuturesLedger, insertSpot, parseCsv, withClient } from '../../export/seed.ts';
import { type SignedIn, signIn, TOKEN, useWebApp } from '../web-fixture.ts';

/**
 * The supply page lists every arrival the gains walk takes in of unknown cost, not only deposits
 * and P2P buys (issue 41 item 4, issue 42 item 3; src/accounting/gains/unknown-cost-arrivals.ts):
 * a futures transfer in whose spot side no record shows, and coins back from a strategy beyond
 * what went there. Each has the cost form; a cost supplied there is the walk's.
 */
const web = useWebApp('supplyarrivals', { filingWaitMs: 0 });
let account: string;
let accountant: SignedIn;
const ms = (iso: string) => Date.parse(iso);

beforeAll(async () => {
  account = await insertAccount(web.db.url, 'arrivals');
  // 500 USDC in the futures wallet on 1 Feb 2025, no spot side (funded before the spot history);
  // moved to spot on 1 Mar (both sides: an own move) and sold for 500 USDT on 2 Jun.
  await insertFuturesLedger(web.db.url, account, [
    {
      recordId: 'fin1',
      marginCoin: 'USDC',
      futureTaxType: 'TRANSFER_IN',
      amount: '500',
      ts: ms('2025-02-01T00:00:00Z'),
    },
    {
      recordId: 'fout1',
      marginCoin: 'USDC',
      futureTaxType: 'TRANSFER_OUT',
      amount: '-500',
      ts: ms('2025-03-01T00:00:00Z'),
    },
  ]);
  const sell = (id: string, day: string, give: [string, string], get: [string, string]) => [
    { recordId: `${id}a`, coin: give[1], spotTaxType: 'Sell', amount: `-${give[0]}`, bizOrderId: id, ts: day },
    { recordId: `${id}b`, coin: get[1], spotTaxType: 'Sell', amount: get[0], bizOrderId: id, ts: day },
  ];
  await insertSpot(web.db.url, account, [
    { recordId: 'tin1', coin: 'USDC', spotTaxType: 'Transfer in', amount: '500', ts: '2025-03-01T00:00:00.000Z' },
    // 1 ETH to a copy-trading strategy, 1.5 ETH back: 0.5 ETH never left through a record.
    {
      recordId: 'away1',
      coin: 'ETH',
      spotTaxType: 'Withdraw to strategy account',
      amount: '-1',
      ts: '2025-03-10T00:00:00.000Z',
    },
    {
      recordId: 'back1',
      coin: 'ETH',
      spotTaxType: 'Deposit from strategy account',
      amount: '1.5',
      ts: '2025-04-01T00:00:00.000Z',
    },
    ...sell('o1', '2025-06-02T10:00:00.000Z', ['500', 'USDC'], ['500', 'USDT']),
    ...sell('o2', '2025-06-03T10:00:00.000Z', ['0.5', 'ETH'], ['1500', 'USDT']),
  ]);
  const lines = ['date,base,quote,price,source'];
  for (let d = 1; d <= 28; d++) lines.push(`2025-06-${String(d).padStart(2, '0')},USDT,EUR,0.9,test`);
  await withClient(web.db.url, (c) => importPrices(c, Readable.from([`${lines.join('\n')}\n`])));
  accountant = await signIn(web.app, TOKEN);
});

const page = (url: string) => web.app.inject({ method: 'GET', url, headers: { cookie: accountant.cookie } });

const form = (fields: Record<string, string>) =>
  web.app.inject({
    method: 'POST',
    url: `/supplied/${account}/cost`,
    payload: new URLSearchParams({ _csrf: accountant.csrf, ...fields }).toString(),
    headers: { cookie: accountant.cookie, 'content-type': 'application/x-www-form-urlencoded' },
  });

const withPool = async <T>(body: (pool: pg.Pool) => Promise<T>) => {
  const pool = new pg.Pool({ connectionString: web.db.url, max: 1 });
  try {
    return await body(pool);
  } finally {
    await pool.end();
  }
};

/** The de gains rows of 2025 by coin: cost basis, and the review flags of the file. */
async function deRows(): Promise<{ cost: Record<string, string>; flags: string[] }> {
  const request = parseExportRequest({
    report: 'realized-gains',
    accountId: account,
    from: '2025-01-01',
    to: '2025-12-31',
    tz: 'UTC',
    method: 'de',
  });
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  const result = await streamReport({
    databaseUrl: web.db.url,
    report: reportFor('realized-gains', 'de'),
    params: reportParams(request, 'main'),
    sink,
  });
  const [header, ...rows] = parseCsv(Buffer.concat(chunks).toString('utf8'));
  const at = (name: string) => header!.indexOf(name);
  return {
    cost: Object.fromEntries(rows.map((r) => [r[at('coin')]!, r[at('cost_basis')]!])),
    flags: Object.keys(result.review.values),
  };
}

/** What the walk itself acquires of unknown cost: a sink recording it, no prices, no supplied lots. */
async function walkedUnknown(): Promise<string[]> {
  const acquired: string[] = [];
  const sink: LotSink<never> = {
    acquire(coin: string, quantity: Decimal, _cost, _atMs, recordIds: string, options) {
      if (options?.unknownCost === true) acquired.push(`${recordIds} ${coin} ${quantity.toFixed()}`);
    },
    dispose: () => [],
    withdraw: () => [],
  };
  const book = { currency: 'EUR', value: async () => null, close: async () => undefined };
  await withClient(web.db.url, async (c) => {
    for await (const event of walkHistory(readLedgerEntries(c, account, new Date('2100-01-01')), book, sink)) {
      void event;
    }
  });
  return acquired;
}

describe('arrivals of unknown cost on the supply page', () => {
  it('are exactly what the gains walk takes in of unknown cost, in its order', async () => {
    const listed = await withPool((pool) => unknownCostArrivals(pool, account));
    expect(listed.map((a) => [a.recordId, a.kind, a.quantity])).toEqual([
      ['futures:fin1', 'futures-in', '500'],
      ['spot:back1', 'own-move-back', '0.5'],
    ]);
    expect(listed.map((a) => `${a.recordId} ${a.coin} ${a.quantity}`)).toEqual(await walkedUnknown());
  });

  it('the supply page lists both with a cost form, and the tax years page counts them per method', async () => {
    const supply = await page(`/supplied/${account}`);
    expect(supply.statusCode).toBe(200);
    expect(supply.body).toContain('data-deposit="futures:fin1"');
    expect(supply.body).toContain('a futures transfer in with no spot side');
    expect(supply.body).toContain('data-deposit="spot:back1"');
    expect(supply.body).toContain('back from Deposit from strategy account beyond what went away');
    expect(supply.body).toMatch(/<strong>0\.5 ETH<\/strong>/);
    const years = await page(`/tax-years/${account}`);
    expect(years.statusCode).toBe(200);
    expect(years.body).toMatch(/<li data-method="uk">\s*uk \(GBP\): 2 arrivals of 2 coins lacking a\s+cost/);
    expect(years.body).toMatch(/<li data-method="de">\s*de \(EUR\): 2 arrivals of 2 coins lacking a\s+cost/);
    expect((await deRows()).flags).toContain('unknown-cost');
  });

  it('a cost supplied for each through the page form is the de walk’s cost of what was sold', async () => {
    const futures = await form({
      deposit: 'futures:fin1',
      acquired_on: '2025-01-20',
      cost_eur: '430',
      source: 'bank-statement',
    });
    expect(futures.statusCode).toBe(303);
    const back = await form({ deposit: 'spot:back1', acquired_on: '2025-03-15', cost_eur: '1000', source: 'strategy' });
    expect(back.statusCode).toBe(303);
    expect(await withPool((pool) => unknownCosts(pool, account))).toMatchObject([
      { coin: 'ETH', lacking: { uk: '0.5', de: '0' }, arrivalsLacking: { uk: 1, de: 0 } },
      { coin: 'USDC', lacking: { uk: '500', de: '0' }, arrivalsLacking: { uk: 1, de: 0 } },
    ]);
    const de = await deRows();
    expect(de.cost).toMatchObject({ USDC: '430', ETH: '1000' });
    expect(de.flags).not.toContain('unknown-cost');
    const years = await page(`/tax-years/${account}`);
    expect(years.body).toMatch(/<li data-method="de">\s*de \(EUR\): 0 arrivals of 0 coins lacking a\s+cost/);
    // Supplied in euros only: the form now asks the pounds alone.
    const supply = await page(`/supplied/${account}`);
    expect(supply.body).toContain('name="cost_gbp"');
    expect(supply.body).not.toContain('name="cost_eur"');
  });
});
