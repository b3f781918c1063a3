import { Writable } from 'node:stream';

import { describe, expect, it } from 'vitest';

import { BalanceTieOutError } from '../../src/accounting/balances/balance-tie-out-error.ts';
import { parseExportRequest, reportParams } from '../../src/export/export-request.ts';
import { balancesReport } from '../../src/export/reports/balances.ts';
import { streamReport } from '../../src/export/stream-report.ts';
import { insertAccount, insertSpot, withClient } from '../export/seed.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const db = useTestDatabase('balances');

async function exportBalances(input: { accountId: string; from: string; to: string; tz?: string; coin?: string }) {
  let out = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      out += chunk.toString('utf8');
      callback();
    },
  });
  const request = parseExportRequest({ report: 'balances', ...input });
  const result = await streamReport({
    databaseUrl: db.url,
    report: balancesReport,
    params: reportParams(request),
    sink,
  });
  const [header, ...lines] = out.trimEnd().split('\n');
  const columns = header!.split(',');
  const rows = lines.map((line) => Object.fromEntries(line.split(',').map((cell, i) => [columns[i]!, cell])));
  return Object.assign(rows, { result });
}

describe('the balances report', () => {
  it('gives per coin the opening balance, the movements and a closing balance that ties to the exchange', async () => {
    const accountId = await insertAccount(db.url, 'balances');
    await insertSpot(db.url, accountId, [
      // Before the period: BTC ends January at 1.5, ETH at 2 and DOGE at 0 (no row for DOGE).
      { recordId: '1', coin: 'BTC', spotTaxType: 'Deposit', amount: '1.5', balance: '1.5', ts: '2026-01-10T00:00:00Z' },
      { recordId: '2', coin: 'ETH', spotTaxType: 'Deposit', amount: '2', balance: '2', ts: '2026-01-11T00:00:00Z' },
      { recordId: '3', coin: 'DOGE', spotTaxType: 'Deposit', amount: '10', balance: '10', ts: '2026-01-12T00:00:00Z' },
      {
        recordId: '4',
        coin: 'DOGE',
        spotTaxType: 'Withdrawal',
        amount: '-10',
        balance: '0',
        ts: '2026-01-13T00:00:00Z',
      },
      // 2026-01-31T23:30Z is February 1st in Berlin: inside the period.
      {
        recordId: '5',
        coin: 'BTC',
        spotTaxType: 'Sell',
        amount: '-0.5',
        fee: '-0.0001',
        balance: '0.9999',
        bizOrderId: 'o1',
        ts: '2026-01-31T23:30:00Z',
      },
      {
        recordId: '6',
        coin: 'USDT',
        spotTaxType: 'Sell',
        amount: '15000.25',
        fee: '-7.5',
        balance: '14992.75',
        bizOrderId: 'o1',
        ts: '2026-01-31T23:30:00Z',
      },
      {
        recordId: '7',
        coin: 'USDT',
        spotTaxType: 'Interest',
        amount: '0.01',
        balance: '14992.76',
        ts: '2026-02-10T00:00:00Z',
      },
      {
        recordId: '8',
        coin: 'USDT',
        spotTaxType: 'Withdrawal',
        amount: '-2000',
        fee: '-1',
        balance: '12991.76',
        ts: '2026-02-11T00:00:00Z',
      },
      {
        recordId: '9',
        coin: 'USDT',
        spotTaxType: 'User lock-up',
        amount: '-100',
        balance: '12891.76',
        ts: '2026-02-12T00:00:00Z',
      },
      // After the period (Berlin): March 1st 00:30 local.
      {
        recordId: '10',
        coin: 'BTC',
        spotTaxType: 'Deposit',
        amount: '5',
        balance: '5.9999',
        ts: '2026-02-28T23:30:00Z',
      },
    ]);
    // An imported BTC price 11 hours before the period's end (Berlin midnight = 23:00Z); none for ETH.
    await withClient(db.url, (c) =>
      c.query(
        `INSERT INTO price (time, base, quote, price, source, account_id)
         VALUES ('2026-02-28T12:00:00Z', 'BTC', 'USDT', '84000', 'closes', NULL)`,
      ),
    );
    const rows = await exportBalances({ accountId, from: '2026-02-01', to: '2026-02-28', tz: 'Europe/Berlin' });
    expect(rows.map((r) => r['coin'])).toEqual(['BTC', 'ETH', 'USDT']);
    expect(rows[0]).toMatchObject({
      opening_balance: '1.5',
      inflows: '0',
      outflows: '-0.5',
      fees: '-0.0001',
      closing_balance: '0.9999',
      records: '1',
      trades_out: '-0.5',
    });
    // No record in the period, a balance still held: a row with nothing moved.
    expect(rows[1]).toMatchObject({
      opening_balance: '2',
      inflows: '0',
      outflows: '0',
      fees: '0',
      closing_balance: '2',
      records: '0',
    });
    expect(rows[2]).toMatchObject({
      opening_balance: '0',
      inflows: '15000.26',
      outflows: '-2100',
      fees: '-8.5',
      closing_balance: '12891.76',
      records: '4',
      trades_in: '15000.25',
      income: '0.01',
      withdrawals: '-2000',
      other_out: '-100',
      other_in: '0.00',
    });
    // The closing balances valued at the period's last instant; ETH has no price: empty, listed.
    expect(rows[0]).toMatchObject({
      valuation_currency: 'USDT',
      closing_value: '83991.6',
      price: '84000',
      price_time_utc: '2026-02-28T12:00:00.000Z',
    });
    expect(rows[0]!['price_source']).toBe('import:closes');
    expect(rows[1]).toMatchObject({ valuation_currency: 'USDT', closing_value: '', price: '' });
    expect(rows[2]).toMatchObject({
      closing_value: '12891.76',
      price: '1',
      price_time_utc: '2026-02-28T22:59:59.999Z',
      price_source: 'par',
    });
    expect(rows.result.review).toEqual({ rows: 1, values: { unpriced: 1 } });
  });

  it("takes the opening balance from the first stored record when the history starts after the account's, and says so", async () => {
    const accountId = await insertAccount(db.url, 'late-start');
    // The stored history starts in March: the account already held 5 BTC (the record's balance says so).
    await insertSpot(db.url, accountId, [
      { recordId: '1', coin: 'BTC', spotTaxType: 'Deposit', amount: '1', balance: '6', ts: '2026-03-01T00:00:00Z' },
      {
        recordId: '2',
        coin: 'BTC',
        spotTaxType: 'Withdrawal',
        amount: '-2',
        fee: '-0.001',
        balance: '3.999',
        ts: '2026-03-02T00:00:00Z',
      },
      { recordId: '3', coin: 'SOL', spotTaxType: 'Deposit', amount: '3', balance: '3', ts: '2026-03-02T00:00:00Z' },
    ]);
    const rows = await exportBalances({ accountId, from: '2026-03-01', to: '2026-03-31' });
    expect(rows.map((r) => [r['coin'], r['opening_balance'], r['closing_balance']])).toEqual([
      ['BTC', '5', '3.999'],
      ['SOL', '0', '3'],
    ]);
    // Both unpriced (no price table here) and, for BTC, opened from its first stored record.
    expect(rows.result.review).toEqual({
      rows: 2,
      values: { 'unpriced,opening-from-first-record': 1, unpriced: 1 },
    });
  });

  it('fails the export naming the coin and both figures when the closing balance does not tie', async () => {
    const accountId = await insertAccount(db.url, 'broken');
    await insertSpot(db.url, accountId, [
      { recordId: '1', coin: 'BTC', spotTaxType: 'Deposit', amount: '1', balance: '1', ts: '2026-03-01T00:00:00Z' },
      { recordId: '2', coin: 'SOL', spotTaxType: 'Deposit', amount: '3', balance: '3', ts: '2026-03-02T00:00:00Z' },
      // The exchange says 2.5 after a withdrawal of 1: a record of -0.5 is missing from the store.
      {
        recordId: '3',
        coin: 'SOL',
        spotTaxType: 'Withdrawal',
        amount: '-1',
        balance: '1.5',
        ts: '2026-03-03T00:00:00Z',
      },
    ]);
    const failure = exportBalances({ accountId, from: '2026-03-01', to: '2026-03-31' });
    await expect(failure).rejects.toBeInstanceOf(BalanceTieOutError);
    await expect(failure).rejects.toMatchObject({ coin: 'SOL', computed: '2', exchange: '1.5', field: 'coin' });
    await expect(failure).rejects.toThrow(/coin SOL: .*\(2\).*\(1\.5\)/);
    // The same records tie with the coin that is right.
    expect(await exportBalances({ accountId, from: '2026-03-01', to: '2026-03-31', coin: 'btc' })).toHaveLength(1);
  });
});
