import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';

import { Decimal } from 'decimal.js';
import { beforeAll, describe, expect, it } from 'vitest';

import { ValidationError } from '../../src/errors/index.ts';
import { exportBaseName, parseExportRequest, reportParams } from '../../src/export/export-request.ts';
import { exportToFile } from '../../src/export/export-to-file.ts';
import { reportByName } from '../../src/export/reports/index.ts';
import { streamReport } from '../../src/export/stream-report.ts';
import { insertAccount, insertSpot, parseCsv, withClient } from '../export/seed.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const db = useTestDatabase('realizedgains');
// Wide enough never to round a difference of two report values (decimal.js rounds to 20 digits by default).
const Exact = Decimal.clone({ precision: 100 });
let accountId: string;

async function exportRows(
  report: 'realized-gains' | 'realized-gains-summary' | 'income',
  options: { method?: string; longTermDays?: string; from?: string; to?: string; tz?: string } = {},
) {
  const request = parseExportRequest({
    report,
    accountId,
    from: options.from ?? '2026-01-01',
    to: options.to ?? '2026-12-31',
    tz: options.tz,
    method: options.method,
    longTermDays: options.longTermDays,
  });
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  const result = await streamReport({
    databaseUrl: db.url,
    report: reportByName(report),
    params: reportParams(request, 'main', { currency: 'USDT', priceToleranceMs: 36 * 3_600_000 }),
    sink,
  });
  const [header, ...rows] = parseCsv(Buffer.concat(chunks).toString('utf8'));
  return { header, rows, result };
}

const at = (day: string) => `${day}T10:00:00.000Z`;

beforeAll(async () => {
  accountId = await insertAccount(db.url, 'gains');
  await insertSpot(db.url, accountId, [
    // Before the period: 1000 USDT for 0.02 BTC, 0.00002 BTC of it the fee -> a lot of 0.01998 for 1000.
    { recordId: 'a1', coin: 'USDT', spotTaxType: 'Buy', amount: '-1000', bizOrderId: 'o1', ts: at('2025-06-01') },
    {
      recordId: 'a2',
      coin: 'BTC',
      spotTaxType: 'Buy',
      amount: '0.02',
      fee: '-0.00002',
      bizOrderId: 'o1',
      ts: at('2025-06-01'),
    },
    // In the period: 0.02 BTC for 1500 USDT.
    { recordId: 'b1', coin: 'USDT', spotTaxType: 'Buy', amount: '-1500', bizOrderId: 'o2', ts: at('2026-02-01') },
    { recordId: 'b2', coin: 'BTC', spotTaxType: 'Buy', amount: '0.02', bizOrderId: 'o2', ts: at('2026-02-01') },
    // 0.025 BTC sold for 2000 USDT, 2 USDT fee: proceeds 1998.
    { recordId: 'c1', coin: 'BTC', spotTaxType: 'Sell', amount: '-0.025', bizOrderId: 'o3', ts: at('2026-03-01') },
    {
      recordId: 'c2',
      coin: 'USDT',
      spotTaxType: 'Sell',
      amount: '2000',
      fee: '-2',
      bizOrderId: 'o3',
      ts: at('2026-03-01'),
    },
    // Interest in SOL (priced by an imported close) and an airdrop of a coin nobody prices.
    { recordId: 'd1', coin: 'SOL', spotTaxType: 'Interest', amount: '0.5', ts: at('2026-03-05') },
    { recordId: 'e1', coin: 'FOO', spotTaxType: 'Airdrop Reward-A', amount: '7', ts: at('2026-03-06') },
    // 10 DOGE sold that were never held: no cost basis is invented.
    { recordId: 'f1', coin: 'DOGE', spotTaxType: 'Sell', amount: '-10', bizOrderId: 'o4', ts: at('2026-04-01') },
    { recordId: 'f2', coin: 'USDT', spotTaxType: 'Sell', amount: '5', bizOrderId: 'o4', ts: at('2026-04-01') },
    // Fees on both legs of both trades. Buy: 300 USDT + 0.3 fee for 0.1 ETH less 0.0001 fee -> 0.0999 ETH for 300.3.
    {
      recordId: 'h1',
      coin: 'USDT',
      spotTaxType: 'Buy',
      amount: '-300',
      fee: '-0.3',
      bizOrderId: 'o6',
      ts: at('2026-05-01'),
    },
    {
      recordId: 'h2',
      coin: 'ETH',
      spotTaxType: 'Buy',
      amount: '0.1',
      fee: '-0.0001',
      bizOrderId: 'o6',
      ts: at('2026-05-01'),
    },
    // Sell: 0.0998 ETH + 0.0001 fee (all 0.0999 held) for 400 USDT less 0.4 fee -> proceeds 399.6.
    {
      recordId: 'i1',
      coin: 'ETH',
      spotTaxType: 'Sell',
      amount: '-0.0998',
      fee: '-0.0001',
      bizOrderId: 'o7',
      ts: at('2026-06-01'),
    },
    {
      recordId: 'i2',
      coin: 'USDT',
      spotTaxType: 'Sell',
      amount: '400',
      fee: '-0.4',
      bizOrderId: 'o7',
      ts: at('2026-06-01'),
    },
    // The SOL sold 400 days after it came in: long-term with --long-term-days 365, short with 400.
    {
      recordId: 'g1',
      coin: 'SOL',
      spotTaxType: 'Sell',
      amount: '-0.5',
      bizOrderId: 'o5',
      ts: '2027-04-09T10:00:00.000Z',
    },
    {
      recordId: 'g2',
      coin: 'USDT',
      spotTaxType: 'Sell',
      amount: '80',
      bizOrderId: 'o5',
      ts: '2027-04-09T10:00:00.000Z',
    },
  ]);
  await withClient(db.url, (c) =>
    c.query(`INSERT INTO price (time, base, quote, price, source) VALUES ($1, 'SOL', 'USDT', '100', 'daily')`, [
      '2026-03-05T00:00:00.000Z',
    ]),
  );
});

describe('the realized-gains report', () => {
  it('matches FIFO over the whole history, the lot bought before the period included, to the last digit', async () => {
    const { header, rows, result } = await exportRows('realized-gains');
    expect(header).toEqual([
      'disposed_at',
      'coin',
      'quantity',
      'proceeds',
      'cost_basis',
      'gain',
      'acquired_at',
      'holding_days',
      'method',
      'valuation_currency',
      'disposal_record_ids',
      'lot_record_ids',
      'term',
      'wallet',
    ]);
    // 1998 shared by quantity: 1998 x 0.01998 / 0.025 = 1596.8016; the second lot's 0.00502 of 0.02 cost 376.5.
    expect(rows).toEqual([
      [
        '2026-03-01T10:00:00.000+00:00',
        'BTC',
        '0.01998',
        '1596.8016',
        '1000',
        '596.8016',
        '2025-06-01T10:00:00.000+00:00',
        '273',
        'fifo',
        'USDT',
        'spot:c1+spot:c2',
        'spot:a1+spot:a2',
        'short',
        'spot',
      ],
      [
        '2026-03-01T10:00:00.000+00:00',
        'BTC',
        '0.00502',
        '401.1984',
        '376.5',
        '24.6984',
        '2026-02-01T10:00:00.000+00:00',
        '28',
        'fifo',
        'USDT',
        'spot:c1+spot:c2',
        'spot:b1+spot:b2',
        'short',
        'spot',
      ],
      // Sold beyond the holdings: cost basis 0 (the whole proceeds are gain), flagged for review.
      [
        '2026-04-01T10:00:00.000+00:00',
        'DOGE',
        '10',
        '5',
        '0',
        '5',
        '',
        '',
        'fifo',
        'USDT',
        'spot:f1+spot:f2',
        '',
        '',
        'spot',
      ],
      [
        '2026-06-01T10:00:00.000+00:00',
        'ETH',
        '0.0999',
        '399.6',
        '300.3',
        '99.3',
        '2026-05-01T10:00:00.000+00:00',
        '31',
        'fifo',
        'USDT',
        'spot:i1+spot:i2',
        'spot:h1+spot:h2',
        'short',
        'spot',
      ],
    ]);
    expect(result.review).toEqual({ rows: 1, values: { 'disposal-exceeds-holdings': 1 } });
  });

  it('matches LIFO: the newest lot first, the older one split with its cost rounded to 10 places', async () => {
    const { rows } = await exportRows('realized-gains', { method: 'lifo' });
    // 1000 x 0.005 / 0.01998 = 250.2502502502|5025...: 10 places, half even.
    expect(rows.slice(0, 2).map((r) => r.slice(1, 6).concat(r[11]!))).toEqual([
      ['BTC', '0.02', '1598.4', '1500', '98.4', 'spot:b1+spot:b2'],
      ['BTC', '0.005', '399.6', '250.2502502503', '149.3497497497', 'spot:a1+spot:a2'],
    ]);
    expect(rows.every((r) => r[8] === 'lifo')).toBe(true);
  });

  it('writes its times in the zone of the period, each with its own offset', async () => {
    const { rows } = await exportRows('realized-gains', { tz: 'Europe/Berlin' });
    expect(rows[0]!.slice(0, 2)).toEqual(['2026-03-01T11:00:00.000+01:00', 'BTC']);
    expect(rows[0]![6]).toBe('2025-06-01T12:00:00.000+02:00');
  });

  it('writes gain = proceeds - cost_basis exactly on every row with proceeds, under every method', async () => {
    for (const method of ['fifo', 'lifo', 'hifo', 'average']) {
      const { rows } = await exportRows('realized-gains', { method });
      for (const r of rows.filter((row) => row[5] !== '')) {
        expect(new Exact(r[3]!).minus(r[4]!).eq(r[5]!)).toBe(true);
      }
    }
  });

  it('sums the period per coin and holding term in the summary', async () => {
    const { rows } = await exportRows('realized-gains-summary', { from: '2027-01-01', to: '2027-12-31' });
    // Only the SOL sale is in 2027: 0.5 SOL valued 50 at receipt, sold for 80, 400 days later.
    expect(rows).toEqual([
      // Then unknown-cost and beyond-holdings quantity and proceeds (none here) and quantity withdrawn beyond holdings.
      ['coin', 'SOL', 'long', '1', '0.5', '80', '50', '30', '0', 'fifo', 'USDT', '365', '0', '0', '0', '0', '0'],
      ['total', '', 'short', '0', '', '0', '0', '0', '0', 'fifo', 'USDT', '365', '', '0', '', '0', ''],
      ['total', '', 'long', '1', '', '80', '50', '30', '0', 'fifo', 'USDT', '365', '', '0', '', '0', ''],
    ]);
    const longer = await exportRows('realized-gains-summary', {
      from: '2027-01-01',
      to: '2027-12-31',
      longTermDays: '400',
    });
    expect(longer.rows[0]!.slice(1, 3)).toEqual(['SOL', 'short']);
  });
});

describe('the income report', () => {
  it('values income at receipt, and lists an unpriced one without a value', async () => {
    const { header, rows, result } = await exportRows('income');
    expect(header).toEqual([
      'received_at',
      'coin',
      'quantity',
      'value',
      'valuation_currency',
      'spot_tax_type',
      'record_id',
      'price_source',
      'uk_head',
      'de_head',
    ]);
    // Each income type's head under each law (income-heads.ts, issue 42 item 7): interest a return
    // (revenue or capital on the terms, CRYPTO61200 ff.; §22 Nr. 3 EStG), an airdrop income only
    // for a service (CRYPTO21250; BMF Rz. 70 f.): both left to the facts, so flagged for review.
    expect(rows).toEqual([
      [
        '2026-03-05T10:00:00.000+00:00',
        'SOL',
        '0.5',
        '50',
        'USDT',
        'Interest',
        'spot:d1',
        'import:daily',
        'miscellaneous income (or capital, on the terms)',
        '§22 Nr. 3 EStG',
      ],
      [
        '2026-03-06T10:00:00.000+00:00',
        'FOO',
        '7',
        '',
        'USDT',
        'Airdrop Reward-A',
        'spot:e1',
        '',
        'miscellaneous income if for a service, else none',
        '§22 Nr. 3 EStG if for a service, else none',
      ],
    ]);
    // The unpriced one is flagged unpriced (its value is what is missing first); the interest's head.
    expect(result.review).toEqual({ rows: 2, values: { unpriced: 1, 'income-head': 1 } });
  });
});

describe('the manifest of a gains export', () => {
  it('names the method and the long-term threshold, and counts the flagged rows', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gains-manifest-'));
    try {
      const request = parseExportRequest({
        report: 'realized-gains',
        accountId,
        from: '2026-01-01',
        to: '2026-12-31',
        method: 'hifo',
        longTermDays: '100',
      });
      const { manifest } = await exportToFile({
        databaseUrl: db.url,
        request,
        account: { id: accountId, name: 'gains' },
        csvPath: path.join(dir, 'gains.csv'),
        valuation: { currency: 'USDT', priceToleranceMs: 3_600_000 },
      });
      expect(manifest.parameters).toMatchObject({ method: 'hifo', longTermDays: 100 });
      expect(manifest.rowCount).toBe(4);
      expect(manifest.review.values).toEqual({ 'disposal-exceeds-holdings': 1 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('lot options in an export request', () => {
  it('are part of the file name, checked, and refused by reports that match no lots', () => {
    const request = parseExportRequest({ report: 'realized-gains', accountId, from: '2026-01-01', to: '2026-12-31' });
    expect(exportBaseName(request)).toBe('realized-gains_2026-01-01_2026-12-31_UTC_fifo_long-365d');
    const bad = (input: Record<string, string>) => () =>
      parseExportRequest({ report: 'realized-gains', accountId, from: '2026-01-01', to: '2026-12-31', ...input });
    expect(bad({ method: 'newest' })).toThrow(ValidationError);
    expect(bad({ longTermDays: '1.5' })).toThrow(/longTermDays/);
    expect(bad({ longTermDays: '0' })).toThrow(/longTermDays/);
    expect(() =>
      parseExportRequest({ report: 'spot-ledger', accountId, from: '2026-01-01', to: '2026-12-31', method: 'lifo' }),
    ).toThrow(/method.*applies only to realized-gains/);
  });
});
