import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { importPrices } from '../../../src/accounting/prices/import-prices.ts';
import { parseExportRequest } from '../../../src/export/export-request.ts';
import { exportToFile } from '../../../src/export/export-to-file.ts';
import { GAINS_WALK_STREAMS } from '../../../src/export/reports/gains-source.ts';
import {
  insertAccount,
  insertCoverage,
  insertFuturesLedger,
  insertSpot,
  parseCsv,
  withClient,
} from '../../export/seed.ts';
import { signIn, TOKEN, useWebApp } from '../web-fixture.ts';

/**
 * Issue 41 item 5: from a tax year's figure to its rows. The gains rows of a coin and year are the
 * rows `realized-gains --method uk|de` writes for the year (same report code), filtered by rule or
 * holding; each row lists the exchange's records it names, by the exchange's own ids; the futures
 * line's records are the futures ledger's of that margin coin and year.
 */
const web = useWebApp('figurerows');
let accountId: string;
let cookie: string;
let dir: string;

const day = (d: string) => `${d}T10:00:00.000Z`;
const trade = (id: string, d: string, give: [string, string], get: [string, string]) => [
  { recordId: `${id}1`, coin: give[1], spotTaxType: 'Sell', amount: `-${give[0]}`, bizOrderId: id, ts: day(d) },
  { recordId: `${id}2`, coin: get[1], spotTaxType: 'Sell', amount: get[0], bizOrderId: id, ts: day(d) },
];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'll-figure-rows-'));
  accountId = await insertAccount(web.db.url, 'figures-ltd');
  await insertSpot(web.db.url, accountId, [
    ...trade('1764227851024', '2024-05-01', ['1000', 'USDT'], ['10', 'SOL']),
    // Bought back within 30 days of a sale: the 30-day rule (uk).
    ...trade('1764227852000', '2024-06-03', ['4', 'SOL'], ['600.69', 'USDT']),
    ...trade('1764227853000', '2024-06-20', ['300', 'USDT'], ['2', 'SOL']),
    ...trade('1764227854000', '2024-07-04', ['6', 'SOL'], ['450.13', 'USDT']),
    { recordId: '1764227855000', coin: 'USDT', spotTaxType: 'Interest', amount: '12.5', ts: day('2024-07-01') },
  ]);
  await insertFuturesLedger(web.db.url, accountId, [
    ...Array.from({ length: 3 }, (_, i) => ({
      recordId: `9000000000000000${i}`,
      symbol: 'BTCUSDT',
      marginCoin: 'USDT',
      futureTaxType: 'CLOSE_LONG',
      amount: '50.5',
      fee: '-1.25',
      ts: Date.parse(day(`2024-09-0${i + 1}`)),
    })),
    // A transfer moves money, it is no result: not behind the futures line.
    {
      recordId: '90000000000000099',
      marginCoin: 'USDT',
      futureTaxType: 'TRANSFER_IN',
      amount: '1000',
      ts: Date.parse(day('2024-09-05')),
    },
  ]);
  await insertCoverage(web.db.url, accountId, '2023-12-01T00:00:00Z', new Date().toISOString(), GAINS_WALK_STREAMS);
  for (const [quote, zone] of [
    ['GBP', 'Europe/London'],
    ['EUR', 'Europe/Berlin'],
  ] as const) {
    const lines = ['date,base,quote,price,source'];
    for (let d = DateTime.fromISO('2024-01-01'); d.year < 2025; d = d.plus({ days: 1 })) {
      lines.push(`${d.toISODate()},USDT,${quote},0.8,synthetic-test`);
    }
    await withClient(web.db.url, (c) => importPrices(c, Readable.from([`${lines.join('\n')}\n`]), { zone }));
  }
  cookie = (await signIn(web.app, TOKEN)).cookie;
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const get = (url: string) => web.app.inject({ method: 'GET', url, headers: { cookie } });

/** The rows of realized-gains for the tax year, as the export writes them. */
async function exportedGains(method: 'uk' | 'de', from: string, to: string, coin: string) {
  const request = parseExportRequest({ report: 'realized-gains', accountId, method, from, to, coin });
  const file = await exportToFile({
    databaseUrl: web.db.url,
    request,
    account: { id: accountId, name: 'figures-ltd' },
    csvPath: path.join(dir, `${method}-${coin}.csv`),
  });
  const [header, ...rows] = parseCsv(await readFile(file.csvPath, 'utf8'));
  return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
}

/**
 * How deep in tables each rows-page row stands (1: in the rows table, as it must be). A row
 * written after its table was closed is no row to a browser: it shows its cells run together.
 */
function rowDepths(body: string): number[] {
  const depths: number[] = [];
  let depth = 0;
  for (const tag of body.matchAll(/<table\b|<\/table>|<tr class="records-row">/g)) {
    if (tag[0] === '</table>') depth--;
    else if (tag[0] === '<table') depth++;
    else depths.push(depth);
  }
  return depths;
}

/** The table rows of a rows page (not the records under them), each as its cells' text; each must stand in the rows table. */
const pageRows = (body: string) => {
  expect(rowDepths(body).filter((depth) => depth !== 1)).toEqual([]);
  return [...body.matchAll(/<tr>\s*((?:<td>[\s\S]*?<\/td>\s*)+)<\/tr>\s*<tr class="records-row">/g)].map((m) =>
    [...m[1]!.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((c) =>
      c[1]!
        .replace(/<[^>]+>/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    ),
  );
};

describe('the rows behind a tax year’s figures', () => {
  it('lists a coin’s UK gains rows of the year as realized-gains writes them, by rule, each with its exchange records', async () => {
    const all = await get(`/tax-years/${accountId}/uk/2024-25/gains?coin=SOL`);
    expect(all.statusCode).toBe(200);
    expect(all.headers['content-type']).toMatch(/^text\/html/);
    const exported = await exportedGains('uk', '2024-04-06', '2025-04-05', 'SOL');
    const rows = pageRows(all.body);
    expect(rows.map((r) => [r[0], r[2], r[3]])).toEqual(
      exported.map((r) => [r.disposed_on, r.rule === 's104' ? 'pool' : r.rule, r.quantity]),
    );
    expect(new Set(exported.map((r) => r.rule))).toEqual(new Set(['30-day', 's104']));
    // Money to the penny; the file's exact figure rounded half up.
    expect(rows[0]![4]).toBe(`£${Number(exported[0]!.proceeds).toFixed(2)}`);
    // The sale's records, by the exchange's own ids (no file prefix), with their type and amount.
    expect(all.body).toContain('<code class="id">17642278520001</code>');
    expect(all.body).toMatch(
      /17642278520001<\/code><\/td>\s*<td class="nowrap">2024-06-03 11:00:00 London<\/td>\s*<td>Sell<\/td>\s*<td class="figure">-4 SOL<\/td>/,
    );

    const thirty = pageRows((await get(`/tax-years/${accountId}/uk/2024-25/gains?coin=SOL&rule=30-day`)).body);
    expect(thirty.map((r) => r[2])).toEqual(exported.filter((r) => r.rule === '30-day').map(() => '30-day'));
    expect(thirty.length).toBeGreaterThan(0);
  });

  it('splits German sales by holding period, lists the income and the futures records of the line', async () => {
    const exported = await exportedGains('de', '2024-01-01', '2024-12-31', 'SOL');
    const taxable = pageRows((await get(`/tax-years/${accountId}/de/2024/gains?coin=SOL&rule=taxable`)).body);
    expect(taxable.map((r) => r[2])).toEqual(exported.filter((r) => r.taxable === 'yes').map((r) => r.quantity));
    const free = pageRows((await get(`/tax-years/${accountId}/de/2024/gains?coin=SOL&rule=tax-free`)).body);
    expect(free).toEqual([]);

    const income = await get(`/tax-years/${accountId}/de/2024/income`);
    expect(pageRows(income.body).map((r) => [r[1], r[2], r[3]])).toEqual([['USDT', '12.5', '€10']]);
    expect(income.body).toContain('<code class="id">1764227855000</code>');

    const futures = await get(`/tax-years/${accountId}/uk/2024-25/futures?coin=USDT`);
    expect(futures.statusCode).toBe(200);
    const ids = [...futures.body.matchAll(/data-ref="futures:(\d+)"/g)].map((m) => m[1]);
    expect(ids).toEqual(['90000000000000000', '90000000000000001', '90000000000000002']);
    expect(futures.body).toContain('USDT-margined futures');
  });

  it('pages nothing past the rows, and answers a page in words for what it does not know', async () => {
    const beyond = await get(`/tax-years/${accountId}/uk/2024-25/gains?coin=SOL&page=2`);
    expect(pageRows(beyond.body)).toEqual([]);
    expect(beyond.body).toContain('rel="prev"');
    for (const url of [
      `/tax-years/${accountId}/uk/2024/gains`,
      `/tax-years/${accountId}/de/2024-25/gains`,
      `/tax-years/${accountId}/fifo/2024/gains`,
      `/tax-years/${accountId}/uk/2024-25/gains?rule=taxable`,
      `/tax-years/${accountId}/uk/2024-25/gains?page=0`,
      `/tax-years/${accountId}/uk/2024-25/gains?coin=%3Dcmd`,
      `/tax-years/${accountId}/uk/2024-25/futures`,
      `/tax-years/00000000-0000-4000-8000-000000000000/uk/2024-25/gains`,
    ]) {
      const answer = await get(url);
      expect([url, answer.statusCode]).toEqual([url, 404]);
      expect(answer.headers['content-type']).toMatch(/^text\/html/);
      expect(answer.body).toContain('<h1>Not found</h1>');
    }
    const refused = await web.app.inject({ method: 'GET', url: `/tax-years/${accountId}/uk/2024-25/gains` });
    expect(refused.statusCode).not.toBe(200);
  });
});
