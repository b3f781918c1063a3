import { beforeAll, describe, expect, it } from 'vitest';

import { parseExportRequest } from '../../src/export/export-request.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { reportText } from './report-text.ts';
import { insertAccount, insertSpot, parseCsv } from './seed.ts';

const db = useTestDatabase('exporttaxrows');
let accountId: string;

async function rows(report: 'koinly' | 'cointracking', coin?: string): Promise<string[][]> {
  return rowsOf(report, { accountId, from: '2026-04-01', to: '2026-04-30', coin });
}

async function rowsOf(
  report: 'koinly' | 'cointracking',
  range: { accountId: string; from: string; to: string; coin?: string },
): Promise<string[][]> {
  return parseCsv(await reportText(db.url, parseExportRequest({ report, ...range }), 'main')).slice(1);
}

beforeAll(async () => {
  accountId = await insertAccount(db.url, 'tax-rows');
  const at = (minute: number) => `2026-04-10T12:${String(minute).padStart(2, '0')}:00.000Z`;
  await insertSpot(db.url, accountId, [
    // A spot buy: USDT out, BTC in, one order, the fee charged in BTC -> one trade row.
    { recordId: 'b1', coin: 'USDT', spotTaxType: 'Buy', amount: '-100.50', bizOrderId: 'o1', ts: at(1) },
    {
      recordId: 'b2',
      coin: 'BTC',
      spotTaxType: 'Buy',
      amount: '0.00100000',
      fee: '-0.00000100',
      bizOrderId: 'o1',
      ts: at(1),
    },
    // Fees on both legs: still one trade.
    { recordId: 'c1', coin: 'ETH', spotTaxType: 'Sell', amount: '-2', fee: '-0.002', bizOrderId: 'o2', ts: at(2) },
    { recordId: 'c2', coin: 'USDT', spotTaxType: 'Sell', amount: '6000', fee: '-6', bizOrderId: 'o2', ts: at(2) },
    // A trade leg without an order id is never paired: a single row, counted as unpaired.
    { recordId: 'd1', coin: 'SOL', spotTaxType: 'Exchange income', amount: '3.5', ts: at(3) },
    // A fee-only record: nothing moved but the fee.
    { recordId: 'e1', coin: 'USDT', spotTaxType: 'Transaction fee deduct', amount: '0', fee: '-0.25', ts: at(4) },
    // A withdrawal with its fee, and a reward.
    { recordId: 'f1', coin: 'BTC', spotTaxType: 'Withdrawal', amount: '-0.5', fee: '-0.0005', ts: at(5) },
    { recordId: 'g1', coin: 'BGB', spotTaxType: 'Airdrop Reward-A', amount: '12', ts: at(6) },
    // A buy whose fee is paid in BGB: a third record of the order, at the fill's ts.
    { recordId: 'h1', coin: 'USDT', spotTaxType: 'Buy', amount: '-50', bizOrderId: 'o3', ts: at(7) },
    { recordId: 'h2', coin: 'ETH', spotTaxType: 'Buy', amount: '0.02', bizOrderId: 'o3', ts: at(7) },
    {
      recordId: 'h3',
      coin: 'BGB',
      spotTaxType: 'Transaction fee deduct',
      amount: '-0.05',
      bizOrderId: 'o3',
      ts: at(7),
    },
  ]);
});

describe('Koinly and CoinTracking rows', () => {
  it('writes Koinly rows: trades paired by order, signs turned into sent/received, exact digits', async () => {
    expect(await rows('koinly')).toEqual([
      [
        '2026-04-10 12:01:00 UTC',
        '100.50',
        'USDT',
        '0.00100000',
        'BTC',
        '0.00000100',
        'BTC',
        '',
        '',
        '',
        'Buy [trade] spot:b1+spot:b2 order:o1',
        'spot:b1',
      ],
      // Fees on both legs: the received leg's fee in the fee column, the given leg's added to what was sent.
      [
        '2026-04-10 12:02:00 UTC',
        '2.002',
        'ETH',
        '6000',
        'USDT',
        '6',
        'USDT',
        '',
        '',
        '',
        'Sell (sent includes its fee 0.002) [trade] spot:c1+spot:c2 order:o2',
        'spot:c1',
      ],
      [
        '2026-04-10 12:03:00 UTC',
        '',
        '',
        '3.5',
        'SOL',
        '',
        '',
        '',
        '',
        '',
        'Exchange income [trade] spot:d1',
        'spot:d1',
      ],
      [
        '2026-04-10 12:04:00 UTC',
        '0.25',
        'USDT',
        '',
        '',
        '',
        '',
        '',
        '',
        'Cost',
        'Transaction fee deduct [fee] spot:e1',
        'spot:e1',
      ],
      [
        '2026-04-10 12:05:00 UTC',
        '0.5',
        'BTC',
        '',
        '',
        '0.0005',
        'BTC',
        '',
        '',
        '',
        'Withdrawal [withdrawal] spot:f1',
        'spot:f1',
      ],
      [
        '2026-04-10 12:06:00 UTC',
        '',
        '',
        '12',
        'BGB',
        '',
        '',
        '',
        '',
        'Airdrop',
        'Airdrop Reward-A [income] spot:g1',
        'spot:g1',
      ],
      // The BGB fee on its trade's row, where Koinly adds it to the cost of what was received.
      [
        '2026-04-10 12:07:00 UTC',
        '50',
        'USDT',
        '0.02',
        'ETH',
        '0.05',
        'BGB',
        '',
        '',
        '',
        'Buy [trade] spot:h1+spot:h2 order:o3, fee spot:h3',
        'spot:h1',
      ],
    ]);
  });

  it('writes CoinTracking rows from the same entries', async () => {
    const ct = await rows('cointracking');
    expect(ct.map((r) => [r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[10], r[11]])).toEqual([
      [
        'Trade',
        // CoinTracking's rule: Buy net of the fee taken from it, the Fee column information only.
        '0.00099900',
        'BTC',
        '100.50',
        'USDT',
        '0.00000100',
        'BTC',
        'main Spot',
        'trade',
        '2026-04-10 12:01:00',
        'spot:b1+spot:b2',
      ],
      [
        'Trade',
        '5994',
        'USDT',
        '2.002',
        'ETH',
        '6',
        'USDT',
        'main Spot',
        'trade',
        '2026-04-10 12:02:00',
        'spot:c1+spot:c2',
      ],
      ['Deposit', '3.5', 'SOL', '', '', '', '', 'main Spot', 'trade', '2026-04-10 12:03:00', 'spot:d1'],
      ['Other Fee', '', '', '0.25', 'USDT', '', '', 'main Spot', 'fee', '2026-04-10 12:04:00', 'spot:e1'],
      // ... and Sell including the fee paid in that coin.
      [
        'Withdrawal',
        '',
        '',
        '0.5005',
        'BTC',
        '0.0005',
        'BTC',
        'main Spot',
        'withdrawal',
        '2026-04-10 12:05:00',
        'spot:f1',
      ],
      ['Airdrop', '12', 'BGB', '', '', '', '', 'main Spot', 'income', '2026-04-10 12:06:00', 'spot:g1'],
      // A fee in a third coin: its own Other Fee row.
      ['Trade', '0.02', 'ETH', '50', 'USDT', '', '', 'main Spot', 'trade', '2026-04-10 12:07:00', 'spot:h1+spot:h2'],
      ['Other Fee', '', '', '0.05', 'BGB', '', '', 'main Spot', 'fee', '2026-04-10 12:07:00', 'spot:h3'],
    ]);
  });

  it('pairs before filtering by coin, so a trade moving the coin keeps both its sides', async () => {
    const btc = await rows('koinly', 'BTC');
    expect(btc.map((r) => r[10])).toEqual(['Buy [trade] spot:b1+spot:b2 order:o1', 'Withdrawal [withdrawal] spot:f1']);
    expect(btc[0]!.slice(1, 7)).toEqual(['100.50', 'USDT', '0.00100000', 'BTC', '0.00000100', 'BTC']);
    const usdt = await rows('cointracking', 'USDT');
    expect(usdt.map((r) => r[11])).toEqual(['spot:b1+spot:b2', 'spot:c1+spot:c2', 'spot:e1', 'spot:h1+spot:h2']);
    // Koinly's BGB file holds the trade whose fee is paid in BGB (the fee is on that row); CoinTracking's its Other Fee row.
    expect((await rows('koinly', 'BGB')).map((r) => r[11])).toEqual(['spot:g1', 'spot:h1']);
    expect((await rows('cointracking', 'BGB')).map((r) => r[11])).toEqual(['spot:g1', 'spot:h3']);
  });

  it('keeps a trade whose legs straddle the end of a period as one trade, in the period of its earlier leg', async () => {
    const straddling = await insertAccount(db.url, 'tax-rows-straddle');
    await insertSpot(db.url, straddling, [
      {
        recordId: 's1',
        coin: 'BTC',
        spotTaxType: 'Sell',
        amount: '-0.5',
        bizOrderId: 'x1',
        ts: '2026-04-30T23:59:59.999Z',
      },
      {
        recordId: 's2',
        coin: 'USDT',
        spotTaxType: 'Sell',
        amount: '30000',
        bizOrderId: 'x1',
        ts: '2026-05-01T00:00:00.000Z',
      },
    ]);
    for (const report of ['koinly', 'cointracking'] as const) {
      const april = await rowsOf(report, { accountId: straddling, from: '2026-04-01', to: '2026-04-30' });
      expect(april).toHaveLength(1);
      expect(april[0]!.join('|')).toMatch(/spot:s1\+spot:s2 order:x1/);
      expect(await rowsOf(report, { accountId: straddling, from: '2026-05-01', to: '2026-05-31' })).toEqual([]);
    }
    const [koinly] = await rowsOf('koinly', { accountId: straddling, from: '2026-04-01', to: '2026-04-30' });
    expect(koinly!.slice(0, 5)).toEqual(['2026-04-30 23:59:59 UTC', '0.5', 'BTC', '30000', 'USDT']);
  });
});
