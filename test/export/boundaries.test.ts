import { PassThrough } from 'node:stream';

import { describe, expect, it } from 'vitest';

import { parseExportRequest, reportParams } from '../../src/export/export-request.ts';
import { reportByName } from '../../src/export/reports/index.ts';
import { streamReport } from '../../src/export/stream-report.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { insertAccount, insertFuturesLedger, insertSpot, insertTransfers, parseCsv } from './seed.ts';

const db = useTestDatabase('exportbounds');

async function run(input: Parameters<typeof parseExportRequest>[0], accountName = 'acct') {
  const request = parseExportRequest(input);
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  const result = await streamReport({
    databaseUrl: db.url,
    report: reportByName(request.report),
    params: reportParams(request, accountName),
    sink,
  });
  const text = Buffer.concat(chunks).toString('utf8');
  return { result, text, rows: parseCsv(text) };
}

describe('time-zone boundaries', () => {
  it('books 23:30 UTC on 31 December into January in Europe/Berlin, and into December in UTC', async () => {
    const accountId = await insertAccount(db.url, 'tz-account');
    await insertSpot(db.url, accountId, [
      { recordId: 'nye', coin: 'BTC', spotTaxType: 'Deposit', amount: '1', ts: '2025-12-31T23:30:00.000Z' },
      // 23:00 UTC on 31 January is 00:00 on 1 February in Berlin: the first instant after January.
      { recordId: 'feb', coin: 'BTC', spotTaxType: 'Deposit', amount: '2', ts: '2026-01-31T23:00:00.000Z' },
      { recordId: 'last', coin: 'BTC', spotTaxType: 'Deposit', amount: '3', ts: '2026-01-31T22:59:59.999Z' },
    ]);
    const berlin = await run({
      report: 'spot-ledger',
      accountId,
      from: '2026-01-01',
      to: '2026-01-31',
      tz: 'Europe/Berlin',
    });
    expect(berlin.rows.slice(1).map((r) => r[0])).toEqual(['spot:nye', 'spot:last']);
    expect(berlin.rows[1]!.slice(1, 4)).toEqual([
      '2025-12-31T23:30:00.000Z',
      '2026-01-01T00:30:00.000+01:00',
      String(Date.parse('2025-12-31T23:30:00.000Z')),
    ]);
    const utcDecember = await run({ report: 'spot-ledger', accountId, from: '2025-12-01', to: '2025-12-31' });
    expect(utcDecember.rows.slice(1).map((r) => r[0])).toEqual(['spot:nye']);
    expect(utcDecember.rows[1]![2]).toBe('2025-12-31T23:30:00.000+00:00');
    const utcJanuary = await run({ report: 'spot-ledger', accountId, from: '2026-01-01', to: '2026-01-31', tz: 'UTC' });
    expect(utcJanuary.rows.slice(1).map((r) => r[0])).toEqual(['spot:last', 'spot:feb']);
  });

  it('uses the local midnights of a DST day (Berlin, 29 March 2026 has 23 hours)', () => {
    const request = parseExportRequest({
      report: 'spot-ledger',
      accountId: '00000000-0000-4000-8000-000000000000',
      from: '2026-03-29',
      to: '2026-03-29',
      tz: 'Europe/Berlin',
    });
    expect(request.period.start.toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(request.period.end.toISOString()).toBe('2026-03-29T22:00:00.000Z');
  });
});

describe('formula injection', () => {
  it('neutralizes text cells that a spreadsheet would execute and keeps negative amounts numeric', async () => {
    const accountId = await insertAccount(db.url, '=cmd|calc');
    await insertSpot(db.url, accountId, [
      {
        recordId: '=HYPERLINK("http://evil")',
        coin: '+BTC',
        spotTaxType: '@SUM(A1)',
        amount: '-1.5',
        fee: '-0.000100000',
        balance: '12.340000000000000001',
        bizOrderId: '\tcmd',
        ts: '2026-05-01T10:00:00Z',
      },
      {
        recordId: 'r2',
        coin: '-2+3',
        spotTaxType: 'Deposit',
        amount: '0.10',
        bizOrderId: '\r=1',
        ts: '2026-05-01T11:00:00Z',
      },
    ]);
    const ledger = await run({ report: 'spot-ledger', accountId, from: '2026-05-01', to: '2026-05-01' });
    const [first, second] = ledger.rows.slice(1);
    // Ids carry their kind's prefix (text-safe-ids.ts), which already keeps a spreadsheet from running them.
    expect(first).toEqual([
      `spot:=HYPERLINK("http://evil")`,
      '2026-05-01T10:00:00.000Z',
      '2026-05-01T10:00:00.000+00:00',
      String(Date.parse('2026-05-01T10:00:00Z')),
      "'+BTC",
      "'@SUM(A1)",
      'unmapped',
      '-1.5',
      '-0.000100000',
      '12.340000000000000001',
      // Control characters are escaped as the terminal shows them (printable-text.ts, issue 34).
      'order:\\tcmd',
      '',
    ]);
    expect(second![4]).toBe("'-2+3");
    expect(second![7]).toBe('0.10');
    expect(second![10]).toBe('order:\\r=1');
    // No cell of the file starts with an executable character except through the apostrophe.
    for (const row of ledger.rows.slice(1)) {
      for (const [i, cell] of row.entries()) {
        if ([7, 8, 9].includes(i)) expect(cell).toMatch(/^-?\d+(\.\d+)?$/);
        else expect(cell).not.toMatch(/^[=+\-@\t\r]/);
      }
    }
    expect(ledger.result.unmapped).toEqual({ rows: 1, values: { 'spotTaxType=@SUM(A1)': 1 } });

    const coinTracking = await run(
      { report: 'cointracking', accountId, from: '2026-05-01', to: '2026-05-01' },
      '=cmd|calc',
    );
    for (const row of coinTracking.rows.slice(1)) {
      expect(row[7]).toBe("'=cmd|calc Spot");
      expect(row[2]).not.toMatch(/^[=+\-@]/);
      expect(row[4]).not.toMatch(/^[=+\-@]/);
    }
    const koinly = await run({ report: 'koinly', accountId, from: '2026-05-01', to: '2026-05-01' });
    expect(koinly.rows[1]!.slice(0, 7)).toEqual([
      '2026-05-01 10:00:00 UTC',
      '1.5',
      "'+BTC",
      '',
      '',
      '0.000100000',
      "'+BTC",
    ]);
  });

  it('neutralizes futures and transfer text fields too, including values kept from raw', async () => {
    const accountId = await insertAccount(db.url, 'inject-2');
    await insertFuturesLedger(db.url, accountId, [
      {
        recordId: 'p1',
        symbol: '=EVIL',
        marginCoin: '@USDT',
        futureTaxType: '=CLOSE_LONG',
        amount: '-12.5',
        ts: Date.parse('2026-06-02T00:00:00Z'),
        unmapped: ['symbol'],
      },
    ]);
    await insertTransfers(db.url, accountId, [
      { txId: '-5', coin: '=1', amount: '3.000', status: '+weird', ts: '2026-06-03T00:00:00Z', unmapped: ['status'] },
    ]);
    const pnl = await run({ report: 'futures-pnl', accountId, from: '2026-06-01', to: '2026-06-30' });
    expect(pnl.rows[1]!.slice(0, 7)).toEqual([
      'futures:p1',
      'USDT-FUTURES',
      "'=EVIL",
      "'@USDT",
      "'=CLOSE_LONG",
      'unmapped',
      'long',
    ]);
    // A type outside the documented list: its amount under `other`, flagged.
    expect(pnl.rows[1]![10]).toBe('-12.5');
    expect(pnl.result.unmapped).toEqual({ rows: 1, values: { 'futureTaxType==CLOSE_LONG': 1 } });
    const transfers = await run({ report: 'broker-transfers', accountId, from: '2026-06-01', to: '2026-06-30' });
    expect(transfers.rows[1]!.slice(0, 7)).toEqual([
      '1001',
      'transfer:-5',
      'deposit',
      'onchain',
      "'=1",
      '3.000',
      "'+weird",
    ]);
  });
});
