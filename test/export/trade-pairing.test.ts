import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseExportRequest, reportParams } from '../../src/export/export-request.ts';
import { exportToFile } from '../../src/export/export-to-file.ts';
import { reportByName } from '../../src/export/reports/index.ts';
import { streamReport } from '../../src/export/stream-report.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { insertAccount, insertSpot, parseCsv } from './seed.ts';

/**
 * Trades are paired by bizOrderId over the whole stored history (docs/reports.md, "Trades"); the
 * expected rows below are computed by hand from the records.
 */
const db = useTestDatabase('exportpairing');
let accountId: string;
let dir: string;

type Tool = 'koinly' | 'cointracking';

async function rows(report: Tool, from: string, to: string, coin?: string) {
  const request = parseExportRequest({ report, accountId, from, to, coin });
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  const result = await streamReport({
    databaseUrl: db.url,
    report: reportByName(report),
    params: reportParams(request, 'main'),
    sink,
  });
  return { rows: parseCsv(Buffer.concat(chunks).toString('utf8')).slice(1), result };
}

/** Koinly's columns that carry amounts, then the description: [sent, coin, received, coin, fee, coin, label, description]. */
const koinlyCells = (row: string[]) => [...row.slice(0, 7), row[9], row[10]];

beforeAll(async () => {
  accountId = await insertAccount(db.url, 'pairing');
  dir = await mkdtemp(path.join(tmpdir(), 'll-pairing-'));
  await insertSpot(db.url, accountId, [
    // Order m: a buy of SOL filled three times, the first fill in March, two in April (days apart).
    { recordId: 'm1a', coin: 'USDT', spotTaxType: 'Buy', amount: '-160', bizOrderId: 'm', ts: '2026-03-31T22:00:00Z' },
    {
      recordId: 'm1b',
      coin: 'SOL',
      spotTaxType: 'Buy',
      amount: '1.000',
      fee: '-0.001',
      bizOrderId: 'm',
      ts: '2026-03-31T22:00:00Z',
    },
    { recordId: 'm2a', coin: 'USDT', spotTaxType: 'Buy', amount: '-320', bizOrderId: 'm', ts: '2026-04-02T08:00:00Z' },
    {
      recordId: 'm2b',
      coin: 'SOL',
      spotTaxType: 'Buy',
      amount: '2.000',
      fee: '-0.002',
      bizOrderId: 'm',
      ts: '2026-04-02T08:00:00Z',
    },
    { recordId: 'm3a', coin: 'USDT', spotTaxType: 'Buy', amount: '-80', bizOrderId: 'm', ts: '2026-04-03T09:00:00Z' },
    {
      recordId: 'm3b',
      coin: 'SOL',
      spotTaxType: 'Buy',
      amount: '0.500',
      fee: '-0.0005',
      bizOrderId: 'm',
      ts: '2026-04-03T09:00:00Z',
    },
    // Order v: one leg given away, two received: one row for the order, received side and fees summed.
    {
      recordId: 'v1',
      coin: 'ETH',
      spotTaxType: 'Exchange spending',
      amount: '-1.5',
      bizOrderId: 'v',
      ts: '2026-04-10T10:00:00Z',
    },
    {
      recordId: 'v2',
      coin: 'USDT',
      spotTaxType: 'Exchange income',
      amount: '3000.00',
      fee: '-3.00',
      bizOrderId: 'v',
      ts: '2026-04-10T10:00:05Z',
    },
    {
      recordId: 'v3',
      coin: 'USDT',
      spotTaxType: 'Exchange income',
      amount: '1500.00',
      fee: '-1.50',
      bizOrderId: 'v',
      ts: '2026-04-10T10:00:09Z',
    },
    // Order g: the fee paid in BGB, a separate record of the order (Koinly: on the trade row; CoinTracking: Other Fee).
    { recordId: 'g1', coin: 'BTC', spotTaxType: 'Sell', amount: '-0.01', bizOrderId: 'g', ts: '2026-04-12T12:00:00Z' },
    { recordId: 'g2', coin: 'USDT', spotTaxType: 'Sell', amount: '800', bizOrderId: 'g', ts: '2026-04-12T12:00:00Z' },
    {
      recordId: 'g3',
      coin: 'BGB',
      spotTaxType: 'Transaction fee deduct',
      amount: '-0.16',
      bizOrderId: 'g',
      ts: '2026-04-12T12:00:00Z',
    },
    // Order d: one fill whose legs the exchange wrote days apart, across the end of May.
    { recordId: 'd1', coin: 'USDT', spotTaxType: 'Buy', amount: '-50', bizOrderId: 'd', ts: '2026-05-30T23:00:00Z' },
    {
      recordId: 'd2',
      coin: 'XRP',
      spotTaxType: 'Buy',
      amount: '40',
      fee: '-0.04',
      bizOrderId: 'd',
      ts: '2026-06-02T01:00:00Z',
    },
    // Order k: three fee-less fills at one instant and three fee deducts at it: the k-th deduct (by
    // record id) goes with the k-th fill (by its first leg's id), unless it is in one of the fill's coins.
    ...(['3', '1', '2'] as const).flatMap((k) => [
      {
        recordId: `ka${k}`,
        coin: 'USDT',
        spotTaxType: 'Sell',
        amount: `${k}00`,
        bizOrderId: 'k',
        ts: '2026-07-07T07:00:00Z',
      },
      {
        recordId: `kb${k}`,
        coin: 'ETH',
        spotTaxType: 'Sell',
        amount: `-0.${k}`,
        bizOrderId: 'k',
        ts: '2026-07-07T07:00:00Z',
      },
    ]),
    ...[
      ['kd2', 'BGB', '-0.2'],
      ['kd3', 'USDT', '-0.3'],
      ['kd1', 'BGB', '-0.1'],
    ].map(([recordId, coin, amount]) => ({
      recordId: recordId!,
      coin: coin!,
      spotTaxType: 'Transaction fee deduct',
      amount: amount!,
      bizOrderId: 'k',
      ts: '2026-07-07T07:00:00Z',
    })),
    // Order w: received legs in two coins cannot be one trade: both legs unpaired, counted and listed.
    { recordId: 'w1', coin: 'XRP', spotTaxType: 'Buy', amount: '10', bizOrderId: 'w', ts: '2026-04-20T12:00:00Z' },
    { recordId: 'w2', coin: 'DOGE', spotTaxType: 'Buy', amount: '50', bizOrderId: 'w', ts: '2026-04-20T12:00:01Z' },
  ]);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('trades paired by bizOrderId', () => {
  it('writes one row per fill of a multi-fill order, each in the month of its own legs', async () => {
    const march = await rows('koinly', '2026-03-01', '2026-03-31');
    expect(march.rows.map(koinlyCells)).toEqual([
      [
        '2026-03-31 22:00:00 UTC',
        '160',
        'USDT',
        '1.000',
        'SOL',
        '0.001',
        'SOL',
        '',
        'Buy [trade] spot:m1a+spot:m1b order:m',
      ],
    ]);
    const april = await rows('koinly', '2026-04-01', '2026-04-30');
    expect(april.rows.slice(0, 2).map(koinlyCells)).toEqual([
      [
        '2026-04-02 08:00:00 UTC',
        '320',
        'USDT',
        '2.000',
        'SOL',
        '0.002',
        'SOL',
        '',
        'Buy [trade] spot:m2a+spot:m2b order:m',
      ],
      [
        '2026-04-03 09:00:00 UTC',
        '80',
        'USDT',
        '0.500',
        'SOL',
        '0.0005',
        'SOL',
        '',
        'Buy [trade] spot:m3a+spot:m3b order:m',
      ],
    ]);
  });

  it('writes one row for an order whose sides do not pair fill by fill, summed, dated by its earliest leg', async () => {
    const { rows: april } = await rows('koinly', '2026-04-01', '2026-04-30');
    expect(april.filter((r) => r[10]!.includes('order:v')).map(koinlyCells)).toEqual([
      [
        '2026-04-10 10:00:00 UTC',
        '1.5',
        'ETH',
        '4500.00',
        'USDT',
        '4.50',
        'USDT',
        '',
        'Exchange spending / Exchange income [trade] spot:v1+spot:v2+spot:v3 order:v',
      ],
    ]);
    const { rows: ct } = await rows('cointracking', '2026-04-01', '2026-04-30');
    // CoinTracking: the Buy amount net of the fee taken from it (the Fee column is information).
    expect(ct.filter((r) => r[11] === 'spot:v1+spot:v2+spot:v3').map((r) => r.slice(0, 7))).toEqual([
      ['Trade', '4495.50', 'USDT', '1.5', 'ETH', '4.50', 'USDT'],
    ]);
  });

  it('pairs legs days apart across a month end into one row in the month of the earlier leg, none in the next', async () => {
    const may = await rows('koinly', '2026-05-01', '2026-05-31');
    expect(may.rows.map(koinlyCells)).toEqual([
      ['2026-05-30 23:00:00 UTC', '50', 'USDT', '40', 'XRP', '0.04', 'XRP', '', 'Buy [trade] spot:d1+spot:d2 order:d'],
    ]);
    const june = await rows('cointracking', '2026-06-01', '2026-06-30');
    expect([june.rows, june.result.unpairedLegs]).toEqual([[], 0]);
  });

  it('puts a BGB fee record of an order on its trade row in Koinly, and keeps it an Other Fee row in CoinTracking', async () => {
    const { rows: april } = await rows('koinly', '2026-04-01', '2026-04-30');
    expect(april.filter((r) => r[10]!.includes('order:g')).map(koinlyCells)).toEqual([
      [
        '2026-04-12 12:00:00 UTC',
        '0.01',
        'BTC',
        '800',
        'USDT',
        '0.16',
        'BGB',
        '',
        'Sell [trade] spot:g1+spot:g2 order:g, fee spot:g3',
      ],
    ]);
    const { rows: ct } = await rows('cointracking', '2026-04-01', '2026-04-30');
    expect(ct.filter((r) => r[9]!.includes('order:g')).map((r) => [r[0], ...r.slice(1, 7), r[11]])).toEqual([
      ['Trade', '800', 'USDT', '0.01', 'BTC', '', '', 'spot:g1+spot:g2'],
      ['Other Fee', '', '', '0.16', 'BGB', '', '', 'spot:g3'],
    ]);
  });

  it('pairs fee deducts with fills at one instant in order, and leaves one in a side of its fill on its own row', async () => {
    const { rows: july } = await rows('koinly', '2026-07-01', '2026-07-31');
    expect(july.map((r) => [r[0], ...r.slice(1, 7), r[10]])).toEqual([
      [
        '2026-07-07 07:00:00 UTC',
        '0.1',
        'ETH',
        '100',
        'USDT',
        '0.1',
        'BGB',
        'Sell [trade] spot:kb1+spot:ka1 order:k, fee spot:kd1',
      ],
      [
        '2026-07-07 07:00:00 UTC',
        '0.2',
        'ETH',
        '200',
        'USDT',
        '0.2',
        'BGB',
        'Sell [trade] spot:kb2+spot:ka2 order:k, fee spot:kd2',
      ],
      ['2026-07-07 07:00:00 UTC', '0.3', 'ETH', '300', 'USDT', '', '', 'Sell [trade] spot:kb3+spot:ka3 order:k'],
      ['2026-07-07 07:00:00 UTC', '0.3', 'USDT', '', '', '', '', 'Transaction fee deduct [fee] spot:kd3 order:k'],
    ]);
  });

  it('with --coin, keeps every row moving the coin, trades with both sides', async () => {
    const { rows: sol } = await rows('koinly', '2026-03-01', '2026-04-30', 'SOL');
    expect(sol.map((r) => r[10])).toEqual([
      'Buy [trade] spot:m1a+spot:m1b order:m',
      'Buy [trade] spot:m2a+spot:m2b order:m',
      'Buy [trade] spot:m3a+spot:m3b order:m',
    ]);
    const { rows: bgb } = await rows('cointracking', '2026-04-01', '2026-04-30', 'BGB');
    expect(bgb.map((r) => [r[0], r[3], r[4], r[11]])).toEqual([['Other Fee', '0.16', 'BGB', 'spot:g3']]);
  });

  it('counts legs that cannot be paired, writes them as single rows and lists them in a side file', async () => {
    const { rows: april, result } = await rows('koinly', '2026-04-01', '2026-04-30');
    expect(april.filter((r) => r[10]!.includes('order:w')).map((r) => r[10])).toEqual([
      'Buy [trade] spot:w1 order:w',
      'Buy [trade] spot:w2 order:w',
    ]);
    expect(result.unpairedLegs).toBe(2);
    expect(result.unmapped.rows).toBe(0);
    const request = parseExportRequest({ report: 'cointracking', accountId, from: '2026-04-01', to: '2026-04-30' });
    const file = await exportToFile({
      databaseUrl: db.url,
      request,
      account: { id: accountId, name: 'pairing' },
      csvPath: path.join(dir, 'april.csv'),
    });
    expect(file.manifest.unpairedLegs).toBe(2);
    // CoinTracking's Date column has no offset: the manifest says which zone it is.
    expect(file.manifest.dateZone).toBe('UTC');
    expect(file.manifest.unpairedFile).toBe('april.unpaired.csv');
    const side = parseCsv(await readFile(file.unpairedPath!, 'utf8'));
    expect(side[0]![0]).toBe('Type');
    expect(side.slice(1).map((r) => r[11])).toEqual(['spot:w1', 'spot:w2']);
    const march = await exportToFile({
      databaseUrl: db.url,
      request: parseExportRequest({ report: 'cointracking', accountId, from: '2026-03-01', to: '2026-03-31' }),
      account: { id: accountId, name: 'pairing' },
      csvPath: path.join(dir, 'march.csv'),
    });
    expect([march.manifest.unpairedLegs, march.manifest.unpairedFile, march.unpairedPath]).toEqual([0, null, null]);
  });
});
