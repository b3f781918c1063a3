import { PassThrough } from 'node:stream';

import { beforeAll, describe, expect, it } from 'vitest';

import { parseExportRequest, reportParams } from '../../src/export/export-request.ts';
import { reportByName } from '../../src/export/reports/index.ts';
import { streamReport } from '../../src/export/stream-report.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { insertAccount, insertFuturesLedger, insertPositions, insertSpot, parseCsv } from './seed.ts';

/**
 * Futures results and spot<->futures moves in the tax-tool files, against hand-computed rows: from
 * the closed positions for an account without a futures ledger, from the ledger for one with it.
 */
const db = useTestDatabase('exportfuturestax');
let accountId: string;
let ledgerAccount: string;

async function rows(report: 'koinly' | 'koinly-futures' | 'cointracking', coin?: string, account = accountId) {
  const request = parseExportRequest({ report, accountId: account, from: '2026-05-01', to: '2026-05-31', coin });
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

  ledgerAccount = await insertAccount(db.url, 'futures-ledger-tax');
  const at = (iso: string) => Date.parse(iso);
  await insertSpot(db.url, ledgerAccount, [
    {
      recordId: 's1',
      coin: 'USDT',
      spotTaxType: 'Transfer out',
      amount: '-1000',
      balance: '0',
      ts: at('2026-05-02T09:00:00Z'),
    },
    {
      recordId: 's2',
      coin: 'USDT',
      spotTaxType: 'Transfer in',
      amount: '1115.75',
      balance: '1115.75',
      ts: at('2026-05-04T09:00:00Z'),
    },
  ]);
  await insertFuturesLedger(db.url, ledgerAccount, [
    {
      recordId: 'f1',
      marginCoin: 'USDT',
      futureTaxType: 'TRANSFER_IN',
      amount: '1000',
      ts: at('2026-05-02T09:00:00Z'),
    },
    {
      recordId: 'f2',
      symbol: 'BTCUSDT',
      marginCoin: 'USDT',
      futureTaxType: 'OPEN_LONG',
      amount: '0',
      fee: '-1.5',
      ts: at('2026-05-02T10:00:00Z'),
    },
    {
      recordId: 'f3',
      symbol: 'BTCUSDT',
      marginCoin: 'USDT',
      futureTaxType: 'CONTRACT_MAIN_SETTLE_FEE_USER_OUT',
      amount: '-1.5',
      ts: at('2026-05-02T16:00:00Z'),
    },
    {
      recordId: 'f4',
      symbol: 'BTCUSDT',
      marginCoin: 'USDT',
      futureTaxType: 'CLOSE_LONG',
      amount: '120.5',
      fee: '-1.75',
      ts: at('2026-05-03T10:00:00Z'),
    },
    {
      recordId: 'f5',
      marginCoin: 'USDT',
      futureTaxType: 'TRANSFER_OUT',
      amount: '-1115.75',
      ts: at('2026-05-04T09:00:00Z'),
    },
  ]);
  // The same position from history-position: the ledger covers its close, so it is no row of its own.
  await insertPositions(db.url, ledgerAccount, [
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
  ]);
});

describe('futures in the tax-tool files', () => {
  it('Koinly without a futures ledger: one realized gain row per closed position and per funding in the futures file', async () => {
    const { rows: koinly, result } = await rows('koinly-futures');
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
    ]);
    expect(result.omitted).toEqual({ rows: 0, values: {} });
    expect(result.rowCount).toBe(3);
    const { rows: spot } = await rows('koinly');
    expect(spot.map((r) => [r[1], r[2], r[3], r[4], r[9], r[11]])).toEqual([
      ['1000', 'USDT', '', '', '', 'spot:t1'],
      ['', '', '1115.75', 'USDT', '', 'spot:t2'],
      ['', '', '50', 'USDT', '', 'spot:d1'],
    ]);
  });

  it('Koinly with the futures ledger: a file per wallet, each move a withdrawal and a deposit with one TxHash', async () => {
    const { rows: spot } = await rows('koinly', undefined, ledgerAccount);
    expect(spot.map((r) => [r[0], r[1], r[2], r[3], r[4], r[9], r[11]])).toEqual([
      ['2026-05-02 09:00:00 UTC', '1000', 'USDT', '', '', '', 'spot:s1'],
      ['2026-05-04 09:00:00 UTC', '', '', '1115.75', 'USDT', '', 'spot:s2'],
    ]);
    const { rows: futures, result } = await rows('koinly-futures', undefined, ledgerAccount);
    expect(futures.map((r) => [r[0], r[1], r[2], r[3], r[4], r[5], r[9], r[10], r[11]])).toEqual([
      [
        '2026-05-02 09:00:00 UTC',
        '',
        '',
        '1000',
        'USDT',
        '',
        '',
        'TRANSFER_IN transfer [futures] futures:f1',
        'spot:s1',
      ],
      [
        '2026-05-02 10:00:00 UTC',
        '1.5',
        'USDT',
        '',
        '',
        '',
        'Cost',
        'OPEN_LONG BTCUSDT fee [futures] futures:f2',
        'futures:f2',
      ],
      [
        '2026-05-02 16:00:00 UTC',
        '1.5',
        'USDT',
        '',
        '',
        '',
        'realized gain',
        'CONTRACT_MAIN_SETTLE_FEE_USER_OUT BTCUSDT funding [futures] futures:f3',
        'futures:f3',
      ],
      [
        '2026-05-03 10:00:00 UTC',
        '',
        '',
        '120.5',
        'USDT',
        '',
        'realized gain',
        'CLOSE_LONG BTCUSDT realized-pnl [futures] futures:f4',
        'futures:f4',
      ],
      [
        '2026-05-03 10:00:00 UTC',
        '1.75',
        'USDT',
        '',
        '',
        '',
        'Cost',
        'CLOSE_LONG BTCUSDT realized-pnl fee [futures] futures:f4:fee',
        'futures:f4:fee',
      ],
      [
        '2026-05-04 09:00:00 UTC',
        '1115.75',
        'USDT',
        '',
        '',
        '',
        '',
        'TRANSFER_OUT transfer [futures] futures:f5',
        'spot:s2',
      ],
    ]);
    expect(result.omitted).toEqual({ rows: 0, values: {} });
  });

  it('CoinTracking with the futures ledger: the Exchange column names the wallet, each move a Withdrawal and a Deposit', async () => {
    const { rows: ct } = await rows('cointracking', undefined, ledgerAccount);
    expect(ct.map((r) => [r[0], r[1], r[2], r[3], r[4], r[7], r[11]])).toEqual([
      // The same instant: rows in record id order (ts, then id), the tool sorts by time.
      ['Deposit', '1000', 'USDT', '', '', 'main Futures', 'futures:f1'],
      ['Withdrawal', '', '', '1000', 'USDT', 'main Spot', 'spot:s1'],
      ['Other Fee', '', '', '1.5', 'USDT', 'main Futures', 'futures:f2'],
      ['Derivatives / Futures Loss', '', '', '1.5', 'USDT', 'main Futures', 'futures:f3'],
      ['Derivatives / Futures Profit', '120.5', 'USDT', '', '', 'main Futures', 'futures:f4'],
      ['Other Fee', '', '', '1.75', 'USDT', 'main Futures', 'futures:f4:fee'],
      ['Withdrawal', '', '', '1115.75', 'USDT', 'main Futures', 'futures:f5'],
      ['Deposit', '1115.75', 'USDT', '', '', 'main Spot', 'spot:s2'],
    ]);
  });

  it("CoinTracking: Derivatives / Futures Profit and Loss, the position's id as Tx-ID; --coin is the margin coin", async () => {
    const { rows: ct } = await rows('cointracking');
    expect(ct.filter((r) => r[8] === 'futures').map((r) => [r[0], r[1], r[2], r[3], r[4], r[8], r[11]])).toEqual([
      ['Derivatives / Futures Profit', '117.25', 'USDT', '', '', 'futures', 'position:p1'],
      ['Derivatives / Futures Loss', '', '', '1.5', 'USDT', 'futures', 'position:p1:funding'],
      ['Derivatives / Futures Loss', '', '', '0.0102', 'BTC', 'futures', 'position:p2'],
    ]);
    const { rows: btc } = await rows('cointracking', 'BTC');
    expect(btc.map((r) => r[11])).toEqual(['position:p2']);
  });
});
