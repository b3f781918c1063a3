import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseExportRequest } from '../../src/export/export-request.ts';
import { exportToFile } from '../../src/export/export-to-file.ts';
import type { ExportManifest } from '../../src/export/manifest.ts';
import { REPORT_NAMES } from '../../src/vocabulary/report-names.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import {
  insertAccount,
  insertFuturesLedger,
  insertPositions,
  insertSpot,
  insertTransfers,
  type SpotRow,
  withClient,
} from './seed.ts';
import { insertMarginLedger, insertP2pLedger } from './seed-wallet-ledgers.ts';

const db = useTestDatabase('exportmanifest');
let accountId: string;
let dir: string;

// Many records share one ts (as on the exchange): only the unique tiebreak fixes their order.
const SPOT: SpotRow[] = Array.from({ length: 60 }, (_, i) => ({
  recordId: String(1_000 + ((i * 37) % 60)),
  coin: ['BTC', 'ETH', 'USDT'][i % 3]!,
  spotTaxType: ['Buy', 'Sell', 'Deposit', 'Withdrawal', 'Interest'][i % 5]!,
  amount: i % 2 ? `-${i}.1000` : `${i}.05`,
  fee: i % 4 ? '0' : '-0.001',
  bizOrderId: `o${Math.floor(i / 2)}`,
  ts: i < 30 ? '2026-02-10T08:00:00.000Z' : `2026-02-${String(11 + (i % 10)).padStart(2, '0')}T09:00:00.000Z`,
}));
// Each coin's running balance in the exchange's order (ts, then id), as the exchange states it:
// the balances report checks its closing balances against it.
{
  const running = new Map<string, Decimal>();
  const inOrder = [...SPOT].sort(
    (a, b) => String(a.ts).localeCompare(String(b.ts)) || Number(a.recordId) - Number(b.recordId),
  );
  for (const row of inOrder) {
    const balance = (running.get(row.coin) ?? new Decimal(0)).plus(row.amount).plus(row.fee ?? '0');
    running.set(row.coin, balance);
    row.balance = balance.toFixed();
  }
}

async function exportAll(label: string, now: Date) {
  const out: Record<string, { csv: Buffer; manifest: ExportManifest; manifestText: string }> = {};
  for (const report of REPORT_NAMES) {
    const request = parseExportRequest({
      report,
      accountId,
      from: '2026-02-01',
      to: '2026-02-28',
      tz: 'Europe/Berlin',
    });
    const file = await exportToFile({
      databaseUrl: db.url,
      request,
      account: { id: accountId, name: 'manifest' },
      csvPath: path.join(dir, label, `${report}.csv`),
      now: () => now,
    });
    const manifestText = await readFile(file.manifestPath, 'utf8');
    out[report] = {
      csv: await readFile(file.csvPath),
      manifest: JSON.parse(manifestText) as ExportManifest,
      manifestText,
    };
    expect(file.manifestPath).toBe(path.join(dir, label, `${report}.manifest.json`));
  }
  return out;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'll-export-manifest-'));
  accountId = await insertAccount(db.url, 'manifest');
  await insertSpot(db.url, accountId, SPOT);
  await insertPositions(
    db.url,
    accountId,
    Array.from({ length: 20 }, (_, i) => ({
      positionId: String(500 - i),
      symbol: i % 2 ? 'BTCUSDT' : 'ETHUSDT',
      marginCoin: 'USDT',
      pnl: `${i - 10}.125`,
      cTime: '2026-02-01T00:00:00Z',
      uTime: '2026-02-15T00:00:00Z',
    })),
  );
  await insertTransfers(
    db.url,
    accountId,
    Array.from({ length: 10 }, (_, i) => ({
      txId: `t${i % 5}`,
      type: i < 5 ? 'deposit' : 'withdrawal',
      coin: 'USDT',
      amount: '10',
      status: 'success',
      ts: '2026-02-20T00:00:00Z',
    })),
  );
  // Futures ledger records after the positions' close (the ledger covers from its first record on).
  await insertFuturesLedger(
    db.url,
    accountId,
    Array.from({ length: 10 }, (_, i) => ({
      recordId: String(900 - i),
      symbol: i % 2 ? 'BTCUSDT' : '',
      marginCoin: 'USDT',
      futureTaxType: i % 2 ? 'CLOSE_LONG' : 'TRANSFER_IN',
      amount: `${i + 1}.5`,
      fee: i % 2 ? '-0.25' : '0',
      ts: Date.parse('2026-02-21T00:00:00Z'),
    })),
  );
  // Margin and P2P records, several at one instant (only the id tiebreak orders them).
  await insertMarginLedger(
    db.url,
    accountId,
    Array.from({ length: 10 }, (_, i) => ({
      recordId: String(700 + ((i * 3) % 10)),
      marginType: i % 2 ? 'isolated' : 'crossed',
      coin: i % 2 ? 'BTC' : 'USDT',
      symbol: i % 2 ? 'BTCUSDT' : '',
      marginTaxType: ['transfer_in', 'borrow', 'deal_in', 'interest_repay', 'confiscated'][i % 5]!,
      amount: `${i + 1}.5`,
      fee: i % 3 ? '0' : '-0.01',
      total: `${(i + 1) * 10}`,
      ts: Date.parse('2026-02-22T00:00:00Z'),
    })),
  );
  await insertP2pLedger(
    db.url,
    accountId,
    Array.from({ length: 8 }, (_, i) => ({
      recordId: String(600 + ((i * 5) % 8)),
      coin: 'USDT',
      p2pTaxType: ['buy', 'transfer_out', 'sell', 'transfer_in'][i % 4]!,
      total: `${i + 1}00`,
      ts: Date.parse('2026-02-23T00:00:00Z'),
    })),
  );
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('manifests and re-exports', () => {
  it('re-exports byte-identical CSVs, even after the rows were stored again in another physical order', async () => {
    const first = await exportAll('first', new Date('2026-03-01T00:00:00Z'));
    const second = await exportAll('second', new Date('2026-03-02T10:00:00Z'));
    // Rewrite the spot and wallet ledger tables in reverse order: same data, other physical layout.
    await withClient(db.url, async (c) => {
      for (const table of ['spot_record', 'margin_ledger_record', 'p2p_ledger_record']) {
        await c.query(`CREATE TEMP TABLE keep AS SELECT * FROM ${table} ORDER BY record_id DESC`);
        await c.query(`DELETE FROM ${table}`);
        await c.query(`INSERT INTO ${table} SELECT * FROM keep ORDER BY record_id DESC`);
        await c.query('DROP TABLE keep');
      }
    });
    const third = await exportAll('third', new Date('2026-03-03T00:00:00Z'));
    for (const report of REPORT_NAMES) {
      expect(first[report]!.manifest.rowCount, report).toBeGreaterThan(0);
      expect(second[report]!.csv.equals(first[report]!.csv), report).toBe(true);
      expect(third[report]!.csv.equals(first[report]!.csv), report).toBe(true);
      // Only the generation time differs between two manifests of the same export.
      expect({ ...second[report]!.manifest, generatedAt: '' }).toEqual({ ...first[report]!.manifest, generatedAt: '' });
      expect(second[report]!.manifest.generatedAt).toBe('2026-03-02T10:00:00.000Z');
    }
  });

  it("writes a manifest whose sha256, size and row count are the file's", async () => {
    const { 'spot-ledger': spot } = await exportAll('check', new Date('2026-03-01T00:00:00Z'));
    const m = spot!.manifest;
    expect(m.sha256).toBe(createHash('sha256').update(spot!.csv).digest('hex'));
    expect(m.bytes).toBe(spot!.csv.length);
    expect(m.rowCount).toBe(spot!.csv.toString('utf8').trimEnd().split('\n').length - 1);
    expect(m.rowCount).toBe(SPOT.length);
    expect(m).toMatchObject({
      report: 'spot-ledger',
      title: 'Spot ledger',
      account: { id: accountId, name: 'manifest' },
      parameters: { from: '2026-02-01', to: '2026-02-28', tz: 'Europe/Berlin', coin: null, includePending: null },
      dateZone: null,
      period: { start: '2026-01-31T23:00:00.000Z', end: '2026-02-28T23:00:00.000Z' },
      file: 'spot-ledger.csv',
      unmapped: { rows: 0, values: {} },
      unpairedLegs: 0,
      unpairedFile: null,
      generatedAt: '2026-03-01T00:00:00.000Z',
    });
    expect(m.columns[0]).toBe('record_id');
    // Nothing but the CSV and its manifest is left behind (no partial files).
    expect((await readdir(path.join(dir, 'check'))).filter((f) => f.includes('partial'))).toEqual([]);
  });

  it('leaves no file under the final name when the export fails', async () => {
    const request = parseExportRequest({ report: 'spot-ledger', accountId, from: '2026-02-01', to: '2026-02-28' });
    const target = path.join(dir, 'failed', 'spot.csv');
    await expect(
      exportToFile({
        databaseUrl: db.url.replace(/\/[^/]+$/, '/ll_no_such_database_x'),
        request,
        account: { id: accountId, name: 'x' },
        csvPath: target,
      }),
    ).rejects.toThrow(/does not exist/);
    expect(await readdir(path.join(dir, 'failed'))).toEqual([]);
  });
});
