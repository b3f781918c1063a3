import { PassThrough } from 'node:stream';

import { beforeAll, describe, expect, it } from 'vitest';

import { parseExportRequest, reportParams } from '../../src/export/export-request.ts';
import { reportByName } from '../../src/export/reports/index.ts';
import { streamReport } from '../../src/export/stream-report.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { insertAccount, insertPositions, insertSpot, parseCsv } from './seed.ts';

/** Futures results and spot<->futures moves in the tax-tool files, against hand-computed rows. */
const db = useTestDatabase('exportfuturestax');
let accountId: string;

async function rows(report: 'koinly' | 'cointracking', coin?: string) {
  const request = parseExportRequest({ report, accountId, from: '2026-05-01', to: '2026-05-31', coin });
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

beforeAll(async () => {
  accountId = await insertAccount(db.url, 'futures-tax');
  await insertPositions(db.url, accountId, [
    // A profit of 120.5 less fees of 3.25 = 117.25 USDT; funding paid 1.5.
    {
      positionId: 'p1',
      symbol: 'BTCUSDT',
      marginCoin: 'USDT',
      pnl: '120.5',
      openFee: '-1.5',
      closeFee: '-1.75',
      totalFunding: '-1.5',
      cTime: '2026-05-02T10:00:00Z',
      uTime: '2026-05-03T10:00:00Z',
    },
    // A loss of 0.01 BTC plus fees 0.0002 = -0.0102 BTC; no funding, so no funding row.
    {
      positionId: 'p2',
      symbol: 'BTCUSD',
      marginCoin: 'BTC',
      pnl: '-0.01',
      openFee: '-0.0001',
      closeFee: '-0.0001',
      cTime: '2026-05-04T10:00:00Z',
      uTime: '2026-05-05T10:00:00Z',
    },
    // Closed in June: not in May's file.
    {
      positionId: 'p3',
      symbol: 'ETHUSDT',
      marginCoin: 'USDT',
      pnl: '5',
      cTime: '2026-05-30T10:00:00Z',
      uTime: '2026-06-01T10:00:00Z',
    },
  ]);
  await insertSpot(db.url, accountId, [
    { recordId: 't1', coin: 'USDT', spotTaxType: 'Transfer out', amount: '-1000', ts: '2026-05-02T09:00:00Z' },
    { recordId: 't2', coin: 'USDT', spotTaxType: 'Transfer in', amount: '1115.75', ts: '2026-05-03T11:00:00Z' },
    { recordId: 'd1', coin: 'USDT', spotTaxType: 'Deposit', amount: '50', ts: '2026-05-06T11:00:00Z' },
  ]);
});

describe('futures in the tax-tool files', () => {
  it('Koinly: one realized gain row per closed position and per funding, in the margin coin; transfers left out', async () => {
    const { rows: koinly, result } = await rows('koinly');
    expect(koinly.map((r) => [r[0], r[1], r[2], r[3], r[4], r[5], r[9], r[10]])).toEqual([
      [
        '2026-05-03 10:00:00 UTC',
        '',
        '',
        '117.25',
        'USDT',
        '',
        'realized gain',
        'realized P&L after fees BTCUSDT long [futures] position:p1',
      ],
      [
        '2026-05-03 10:00:00 UTC',
        '1.5',
        'USDT',
        '',
        '',
        '',
        'realized gain',
        'funding BTCUSDT long [futures] position:p1:funding',
      ],
      [
        '2026-05-05 10:00:00 UTC',
        '0.0102',
        'BTC',
        '',
        '',
        '',
        'realized gain',
        'realized P&L after fees BTCUSD long [futures] position:p2',
      ],
      ['2026-05-06 11:00:00 UTC', '', '', '50', 'USDT', '', '', 'Deposit [deposit] spot:d1'],
    ]);
    expect(result.omitted).toEqual({ rows: 2, values: { 'Transfer in': 1, 'Transfer out': 1 } });
    expect(result.rowCount).toBe(4);
  });

  it("CoinTracking: Derivatives / Futures Profit and Loss, the position's id as Tx-ID; --coin is the margin coin", async () => {
    const { rows: ct } = await rows('cointracking');
    expect(ct.slice(0, 3).map((r) => [r[0], r[1], r[2], r[3], r[4], r[8], r[11]])).toEqual([
      ['Derivatives / Futures Profit', '117.25', 'USDT', '', '', 'futures', 'position:p1'],
      ['Derivatives / Futures Loss', '', '', '1.5', 'USDT', 'futures', 'position:p1:funding'],
      ['Derivatives / Futures Loss', '', '', '0.0102', 'BTC', 'futures', 'position:p2'],
    ]);
    const { rows: btc } = await rows('cointracking', 'BTC');
    expect(btc.map((r) => r[11])).toEqual(['position:p2']);
  });
});
