import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { importPrices } from '../../src/accounting/prices/import-prices.ts';
import { exportCovered } from '../../src/export/export-covered.ts';
import { parseExportRequest } from '../../src/export/export-request.ts';
import { exportToFile } from '../../src/export/export-to-file.ts';
import {
  insertAccount,
  insertCoverage,
  insertFuturesLedger,
  insertSpot,
  parseCsv,
  withClient,
} from '../export/seed.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { independentSa108 } from './independent-filing-figures.ts';

/**
 * realized-gains-summary under `--method uk` and `--method de` as filing summaries (issue 33,
 * items 5-7): whole tax years, the return's figures in whole units, futures results apart. Trades
 * are against the filing currency itself (GBP, EUR: worth its amount, no lots), so every figure
 * below is checked by hand.
 */
const db = useTestDatabase('filingsummaries');
let uk: string;
let de: string;
let dir: string;

const at = (day: string) => `${day}T10:00:00.000Z`;
let order = 0;

function trade(day: string, give: [string, string], get: [string, string]) {
  order += 1;
  const id = `t${order}`;
  return [
    { recordId: `${id}a`, coin: give[1], spotTaxType: 'Sell', amount: `-${give[0]}`, bizOrderId: id, ts: at(day) },
    { recordId: `${id}b`, coin: get[1], spotTaxType: 'Sell', amount: get[0], bizOrderId: id, ts: at(day) },
  ];
}

const ms = (iso: string) => Date.parse(iso);

async function exportSummary(
  accountId: string,
  method: string,
  from: string,
  to: string,
  report = 'realized-gains-summary',
) {
  const request = parseExportRequest({ report, accountId, from, to, method });
  const file = await exportToFile({
    databaseUrl: db.url,
    request,
    account: { id: accountId, name: 'filing' },
    csvPath: path.join(dir, `${report}-${method}-${from}-${to}.csv`),
  });
  const [header, ...rows] = parseCsv(await readFile(file.csvPath, 'utf8'));
  const col = (name: string) => header!.indexOf(name);
  const pick = (row: string[], names: string[]) => names.map((n) => row[col(n)]);
  return { header: header!, rows, col, pick, manifest: file.manifest, request };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'filing-'));
  uk = await insertAccount(db.url, 'uk');
  de = await insertAccount(db.url, 'de');
  await insertSpot(db.url, uk, [
    // 10 SOL for GBP 1,000.25; 4 sold for 600.69 (cost 400.10: gain 200.59); 6 for 450.13 (cost
    // 600.15: loss 150.02); 1 ETH never held sold for 100.99 (beyond the holdings: cost 0).
    ...trade('2024-05-01', ['1000.25', 'GBP'], ['10', 'SOL']),
    ...trade('2024-06-03', ['4', 'SOL'], ['600.69', 'GBP']),
    ...trade('2024-07-04', ['6', 'SOL'], ['450.13', 'GBP']),
    ...trade('2024-08-01', ['1', 'ETH'], ['100.99', 'GBP']),
  ]);
  await insertFuturesLedger(db.url, uk, [
    // 1 April 2024 is tax year 2023-24; 23:30 UTC on 5 April 2024 is 00:30 on 6 April in London: 2024-25.
    {
      recordId: 'f1',
      symbol: 'BTCUSDT',
      marginCoin: 'USDT',
      futureTaxType: 'OPEN_LONG',
      amount: '0',
      fee: '-0.75',
      ts: ms('2024-04-01T10:00:00Z'),
    },
    {
      recordId: 'f2',
      symbol: 'BTCUSDT',
      marginCoin: 'USDT',
      futureTaxType: 'CLOSE_LONG',
      amount: '50.5',
      fee: '-1.25',
      ts: ms('2024-04-05T23:30:00Z'),
    },
    {
      recordId: 'f3',
      symbol: 'BTCUSDT',
      marginCoin: 'USDT',
      futureTaxType: 'CONTRACT_MAIN_SETTLE_FEE_USER_OUT',
      amount: '-0.3',
      ts: ms('2024-09-01T08:00:00Z'),
    },
    // Money moved from spot is no result: not in the section.
    {
      recordId: 'f4',
      marginCoin: 'USDT',
      futureTaxType: 'TRANSFER_IN',
      amount: '1000',
      ts: ms('2024-05-01T09:00:00Z'),
    },
  ]);
  await insertSpot(db.url, de, [
    // 2 ETH for EUR 2,000.30; 1 sold in 2024 for 1,500.55 (taxable gain 500.40); 1 SOL never held
    // sold for 600 (beyond the holdings: gain 600 at cost 0). Interest: 101.99 USDT at 0.5 = EUR 50.995.
    ...trade('2024-02-01', ['2000.30', 'EUR'], ['2', 'ETH']),
    ...trade('2024-05-02', ['1', 'ETH'], ['1500.55', 'EUR']),
    ...trade('2024-06-03', ['1', 'SOL'], ['600', 'EUR']),
    { recordId: 'di', coin: 'USDT', spotTaxType: 'Interest', amount: '101.99', ts: at('2024-07-01') },
  ]);
  await insertFuturesLedger(db.url, de, [
    // 22:30 UTC on 31 December is 23:30 in Berlin: 2024. An hour later it is 2025 there.
    {
      recordId: 'g1',
      symbol: 'ETHUSDT',
      marginCoin: 'USDT',
      futureTaxType: 'CLOSE_SHORT',
      amount: '-20',
      fee: '-0.5',
      ts: ms('2024-12-31T22:30:00Z'),
    },
    {
      recordId: 'g2',
      symbol: 'ETHUSDT',
      marginCoin: 'USDT',
      futureTaxType: 'CLOSE_SHORT',
      amount: '99',
      fee: '-0.5',
      ts: ms('2024-12-31T23:30:00Z'),
    },
  ]);
  const lines = ['date,base,quote,price,source'];
  for (let d = DateTime.fromISO('2024-01-01'); d.year < 2025; d = d.plus({ days: 1 })) {
    lines.push(`${d.toISODate()},USDT,EUR,0.5,synthetic-test`);
  }
  await withClient(db.url, (c) => importPrices(c, Readable.from([`${lines.join('\n')}\n`])));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('whole tax years (uk: 6 April to 5 April, London; de: the calendar year, Berlin)', () => {
  it('a UK summary of part of a tax year marks every row and its manifest complete: false', async () => {
    // HMRC "Tax year": 6 April to 5 April; June to August is part of 2024-25 only.
    const s = await exportSummary(uk, 'uk', '2024-06-01', '2024-08-31');
    expect(s.request.period.tz).toBe('Europe/London');
    expect(s.manifest.complete).toBe(false);
    expect(s.rows.length).toBeGreaterThan(0);
    for (const r of s.rows) expect(s.pick(r, ['tax_year', 'complete'])).toEqual(['2024-25', 'false']);
    expect(s.manifest.review.values['part-of-tax-year']).toBeGreaterThan(0);
  });

  it('a German summary of part of a calendar year decides no Freigrenze (EStG section 23 (3) sentence 5: the year’s total)', async () => {
    const s = await exportSummary(de, 'de', '2024-07-01', '2024-09-30');
    expect(s.manifest.complete).toBe(false);
    const total = s.rows.find((r) => r[s.col('level')] === 'total')!;
    expect(s.pick(total, ['year', 'complete', 'freigrenze', 'below_freigrenze', 'taxable_amount'])).toEqual([
      '2024',
      'false',
      '1000',
      'undecided',
      '',
    ]);
    for (const r of s.rows) expect(r[s.col('complete')]).toBe('false');
  });

  it('asked in UTC, a German calendar year misses its first hour in Berlin: not whole', async () => {
    const request = parseExportRequest({
      report: 'realized-gains-summary',
      accountId: de,
      from: '2024-01-01',
      to: '2024-12-31',
      tz: 'UTC',
      method: 'de',
    });
    const file = await exportToFile({
      databaseUrl: db.url,
      request,
      account: { id: de, name: 'filing' },
      csvPath: path.join(dir, 'de-utc.csv'),
    });
    expect(file.manifest.complete).toBe(false);
  });

  it('a whole tax year exported from partial coverage (a _PARTIAL file) is complete: false in every row and the manifest, deciding nothing', async () => {
    for (const [account, method, from, to] of [
      [uk, 'uk', '2024-04-06', '2025-04-05'],
      [de, 'de', '2024-01-01', '2024-12-31'],
    ] as const) {
      const request = parseExportRequest({ report: 'realized-gains-summary', accountId: account, from, to, method });
      // What exportCovered hands over when a stream's windows have a gap (--allow-partial).
      const file = await exportToFile({
        databaseUrl: db.url,
        request,
        account: { id: account, name: 'filing' },
        csvPath: path.join(dir, `partial-${method}_PARTIAL.csv`),
        coverage: { complete: false, streams: [] },
      });
      const [header, ...rows] = parseCsv(await readFile(file.csvPath, 'utf8'));
      expect(file.manifest.partial).toBe(true);
      expect(file.manifest.complete).toBe(false);
      expect(new Set(rows.map((r) => r[header!.indexOf('complete')]))).toEqual(new Set(['false']));
      if (method === 'de') {
        const total = rows.find((r) => r[header!.indexOf('level')] === 'total')!;
        expect(total[header!.indexOf('below_freigrenze')]).toBe('undecided');
      }
    }
  });

  it('a year reaching the Freigrenze only with parts beyond the holdings at cost 0 is undecided, flagged and says so', async () => {
    // EStG section 23 (3) sentence 5: taxable 1,100.40 reaches EUR 1,000 only with the SOL sold
    // beyond the holdings (gain 600 at cost 0); without it 500.40. Its cost is unknown: no decision.
    // (1,100.40 of spot sales; the futures loss and fee paid in USDT dispose of 20.5 USDT from its
    // pool at market value, 20.5 x 0.5 = 10.25 for cost 10.25, gain 0: the fee is in the futures
    // rows' fees, never also a loss here, issue 42 item 1.)
    const s = await exportSummary(de, 'de', '2024-01-01', '2024-12-31');
    expect(s.manifest.complete).toBe(true);
    const total = s.rows.find((r) => r[s.col('level')] === 'total')!;
    expect(
      s.pick(total, [
        'complete',
        'taxable_gain',
        'beyond_holdings_quantity',
        'beyond_holdings_proceeds',
        'below_freigrenze',
        'taxable_amount',
      ]),
    ).toEqual(['true', '1100.4', '', '600', 'undecided', '']);
    const sol = s.rows.find((r) => r[s.col('level')] === 'coin' && r[s.col('coin')] === 'SOL')!;
    expect(s.pick(sol, ['beyond_holdings_quantity', 'beyond_holdings_proceeds'])).toEqual(['1', '600']);
    expect(total[s.col('note')]).toContain('without them 500.4');
    expect(s.manifest.review.values['freigrenze-depends-on-beyond-holdings']).toBe(1);
  });
});

describe('filing figures in whole units', () => {
  it('SA108 cryptoasset figures for 2024-25 in whole pounds: proceeds and gains down, costs and losses up (SA100 rounding rule)', async () => {
    const s = await exportSummary(uk, 'uk', '2024-04-06', '2025-04-05');
    expect(s.manifest.complete).toBe(true);
    const total = s.rows.find((r) => r[s.col('level')] === 'total')!;
    // Exact: proceeds 600.69 + 450.13 + 100.99; costs 400.10 + 600.15 + 0; gains 200.59 + 100.99; losses 150.02.
    // Two more disposals, unpriced (USDT has no GBP price here): the futures fees paid in USDT leave
    // its pool (pools follow the futures wallet), in no sum.
    expect(
      s.pick(total, ['disposals', 'unpriced_disposals', 'proceeds', 'allowable_costs', 'gains', 'losses', 'net_gain']),
    ).toEqual(['5', '2', '1151.81', '1000.25', '301.58', '150.02', '151.56']);
    const sa108 = s.rows.find((r) => r[s.col('level')] === 'sa108')!;
    expect(s.pick(sa108, ['tax_year', 'disposals', 'proceeds', 'allowable_costs', 'gains', 'losses'])).toEqual([
      '2024-25',
      '3',
      '1151',
      '1001',
      '301',
      '151',
    ]);
    expect(sa108[s.col('note')]).toContain('round down income and round up expenses');
    expect(sa108[s.col('note')]).toContain('parts beyond the holdings (proceeds 100.99) counted at cost 0');
    expect(sa108[s.col('note')]).toContain('2 unpriced disposals not in the figures');
    expect(sa108[s.col('beyond_holdings_proceeds')]).toBe('100');
  });

  it('the SA108 figures equal an independent calculation (no src/ import) from realized-gains --method uk’s rows', async () => {
    const s = await exportSummary(uk, 'uk', '2024-04-06', '2025-04-05');
    const detail = await exportSummary(uk, 'uk', '2024-04-06', '2025-04-05', 'realized-gains');
    const sa108 = s.rows.find((r) => r[s.col('level')] === 'sa108')!;
    expect(independentSa108(detail.header, detail.rows, '2024-25')).toEqual({
      disposals: sa108[s.col('disposals')],
      proceeds: sa108[s.col('proceeds')],
      costs: sa108[s.col('allowable_costs')],
      gains: sa108[s.col('gains')],
      losses: sa108[s.col('losses')],
    });
  });

  it('Anlage SO figures for 2024 in whole euros: private sales (EStG section 23) and section 22 no. 3 income', async () => {
    const s = await exportSummary(de, 'de', '2024-01-01', '2024-12-31');
    const so = s.rows.find((r) => r[s.col('level')] === 'anlage-so')!;
    // Taxable sales: proceeds 1,500.55 + 600 + 10.25 (down), cost 1,000.15 + 0 + 10.25 (up), no
    // selling costs, gain 1,100.40 (down); the last, 20.5 USDT paying the futures loss and fee on 31
    // December at market value (pools follow the futures wallet: a result paid is a disposal, its fee
    // too). Interest 101.99 USDT at 0.5 = 50.995 (down).
    expect(
      s.pick(so, ['taxable_proceeds', 'taxable_cost', 'taxable_selling_costs', 'taxable_gain', 'other_income']),
    ).toEqual(['2110', '1011', '0', '1100', '50']);
    expect(so[s.col('note')]).toContain('whole euros');
  });
});

describe('futures results per tax year and margin coin, from the futures ledger', () => {
  it('uk: each London tax year’s realized P&L, fees and funding in USDT, the head left to the accountant', async () => {
    const s = await exportSummary(uk, 'uk', '2023-04-06', '2025-04-05');
    const futures = s.rows.filter((r) => r[s.col('level')] === 'futures');
    expect(
      futures.map((r) => s.pick(r, ['tax_year', 'coin', 'realized_pnl', 'fees', 'funding', 'futures_net'])),
    ).toEqual([
      ['2023-24', 'USDT', '0', '-0.75', '0', '-0.75'],
      ['2024-25', 'USDT', '50.5', '-1.25', '-0.3', '48.95'],
    ]);
    for (const r of futures) expect(r[s.col('note')]).toContain('accountant’s call');
    // No USDT/GBP rate here: no value in pounds is guessed; the records are counted and flagged.
    expect(futures.map((r) => s.pick(r, ['futures_net_value', 'unpriced_futures_records']))).toEqual([
      ['0', '1'],
      ['0', '2'],
    ]);
    expect(s.manifest.review.values.unpriced).toBeGreaterThanOrEqual(2);
  });

  it('uk: the results also in pounds, each record at the daily rate of its London date (23:30 UTC on 5 April is 6 April in London)', async () => {
    // CRYPTO23000: "an appropriate exchange rate" by "a consistent methodology"; docs/reports.md,
    // "Which day a rate values". USDC-margined, so the rates touch no other account's coin here.
    const ukf = await insertAccount(db.url, 'ukf');
    await insertFuturesLedger(db.url, ukf, [
      {
        recordId: 'u1',
        symbol: 'BTCPERP',
        marginCoin: 'USDC',
        futureTaxType: 'CLOSE_LONG',
        amount: '100',
        fee: '-2',
        ts: ms('2024-04-05T23:30:00Z'),
      },
      {
        recordId: 'u2',
        symbol: 'BTCPERP',
        marginCoin: 'USDC',
        futureTaxType: 'CONTRACT_MAIN_SETTLE_FEE_USER_OUT',
        amount: '-10',
        ts: ms('2024-04-06T12:00:00Z'),
      },
      // Weeks after the series ends: beyond the tolerance, unpriced.
      {
        recordId: 'u3',
        symbol: 'BTCPERP',
        marginCoin: 'USDC',
        futureTaxType: 'CLOSE_SHORT',
        amount: '-40',
        ts: ms('2024-05-10T10:00:00Z'),
      },
    ]);
    const series = 'date,base,quote,price,source\n2024-04-05,USDC,GBP,0.5,t\n2024-04-06,USDC,GBP,0.8,t\n';
    await withClient(db.url, (c) => importPrices(c, Readable.from([series]), { zone: 'Europe/London' }));
    const s = await exportSummary(ukf, 'uk', '2024-04-06', '2025-04-05');
    const futures = s.rows.filter((r) => r[s.col('level')] === 'futures');
    const columns = ['realized_pnl', 'fees', 'funding', 'futures_net'];
    const values = [
      'realized_pnl_value',
      'fees_value',
      'funding_value',
      'futures_net_value',
      'unpriced_futures_records',
    ];
    expect(futures.map((r) => [r[s.col('coin')], ...s.pick(r, columns), ...s.pick(r, values)])).toEqual([
      // 100 x 0.8 (the London date's rate, not 5 April's 0.5), -2 x 0.8, -10 x 0.8; the -40 of May unpriced.
      ['USDC', '60', '-2', '-10', '48', '80', '-1.6', '-8', '70.4', '1'],
    ]);
    expect(futures[0]![s.col('currency')]).toBe('USDC');
    expect(futures[0]![s.col('note')]).toContain('in pounds');
  });

  it('de: the Berlin calendar year’s futures as section 20 Termingeschäfte, apart from the section 23 figures', async () => {
    const s = await exportSummary(de, 'de', '2024-01-01', '2024-12-31');
    const futures = s.rows.filter((r) => r[s.col('level')] === 'futures');
    expect(futures.map((r) => s.pick(r, ['year', 'coin', 'realized_pnl', 'fees', 'futures_net']))).toEqual([
      ['2024', 'USDT', '-20', '-0.5', '-20.5'],
    ]);
    // And in euros at the day's USDT/EUR rate of 0.5.
    expect(
      futures.map((r) =>
        s.pick(r, ['realized_pnl_value', 'fees_value', 'futures_net_value', 'unpriced_futures_records']),
      ),
    ).toEqual([['-10', '-0.25', '-10.25', '0']]);
    expect(futures[0]![s.col('note')]).toContain('section 20');
    // Not in the private sales' figures: only the USDT paying them leaves its pool there, at market
    // value, the fee's 0.5 too (20.5 USDT for EUR 10.25, cost 10.25, gain 0: the fee counted once,
    // in the futures row's fees; before issue 42 item 1 it was disposed of for nothing, -0.25).
    const total = s.rows.find((r) => r[s.col('level')] === 'total')!;
    expect(total[s.col('taxable_gain')]).toBe('1100.4');
  });
});

describe('futures-pnl and futures-summary read the futures ledger: a year’s file is whole', () => {
  it('a tax year with the futures ledger synced (and no closed positions read) is no _PARTIAL file, its totals the year’s records', async () => {
    // history-position keeps 3 months (docs/exchange-api.md); the futures ledger the whole year (§5.7).
    await insertCoverage(db.url, uk, '2024-01-01T00:00:00Z', '2025-06-01T00:00:00Z', ['futures-ledger']);
    const out = await mkdtemp(path.join(tmpdir(), 'futures-year-'));
    try {
      for (const report of ['futures-pnl', 'futures-summary']) {
        const request = parseExportRequest({
          report,
          accountId: uk,
          from: '2024-04-06',
          to: '2025-04-05',
          tz: 'Europe/London',
        });
        const file = await exportCovered({
          databaseUrl: db.url,
          exportDir: out,
          request,
          account: { id: uk, name: 'filing' },
          partial: 'mark',
        });
        expect([file.gap, file.manifest.partial, file.csvPath.includes('_PARTIAL')]).toEqual([undefined, false, false]);
        const [header, ...rows] = parseCsv(await readFile(file.csvPath, 'utf8'));
        const col = (name: string) => header!.indexOf(name);
        if (report === 'futures-pnl') {
          // The close at 00:30 on 6 April (London) and the funding of September; not the open of 1 April, not the transfer.
          expect(rows.map((r) => [r[col('record_id')], r[col('category')]])).toEqual([
            ['futures:f2', 'realized-pnl'],
            ['futures:f3', 'funding'],
          ]);
        } else {
          const total = rows.find((r) => r[col('level')] === 'margin_coin_total')!;
          expect(['margin_coin', 'closes', 'pnl', 'fees', 'funding', 'net'].map((c) => total[col(c)])).toEqual([
            'USDT',
            '1',
            '50.5',
            '-1.25',
            '-0.3',
            '48.95',
          ]);
        }
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
