import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { useTestDatabase } from '../helpers/test-database.ts';
import { exportRows } from './replay/tax-tool-world.ts';
import { insertAccount, insertSpot } from './seed.ts';
import { insertMarginLedger, insertP2pLedger } from './seed-wallet-ledgers.ts';

/**
 * Issue 35: the margin and P2P wallets' rows in the tax-tool files, record by record
 * (src/booking/wallet-entries.ts, docs/reports.md "Margin and P2P wallets"): a margin trade's two
 * legs one row, a leg without its other side (or with a leg of another kind) a row of its own
 * flagged, a transfer carrying its spot side's id as Koinly's TxHash, a fee on coins coming in a
 * row of its own, the labels by treatment, an unlisted type flagged, `--coin` keeping a trade whole.
 */
const db = useTestDatabase('wallettaxrows');
const T = Date.UTC(2026, 2, 10, 12, 0, 0);
let accountId: string;
let dir: string;

beforeAll(async () => {
  accountId = await insertAccount(db.url, 'wallets');
  dir = await mkdtemp(path.join(tmpdir(), 'll-wallet-rows-'));
  await insertSpot(db.url, accountId, [
    { recordId: '5000', coin: 'USDT', spotTaxType: 'Transfer out', amount: '-100', balance: '0', ts: T },
    { recordId: '5001', coin: 'USDT', spotTaxType: 'Transfer out', amount: '-7', balance: '0', ts: T + 9_000 },
  ]);
  await insertMarginLedger(db.url, accountId, [
    // The other side of spot 5000: a transfer into the crossed account.
    { recordId: '100', coin: 'USDT', marginTaxType: 'transfer_in', amount: '100', total: '100', ts: T },
    // A margin buy: 0.001 BTC (fee 0.000001 BTC) for 60 USDT, one instant.
    { recordId: '101', coin: 'BTC', marginTaxType: 'deal_in', amount: '0.001', fee: '-0.000001', ts: T + 1_000 },
    { recordId: '102', coin: 'USDT', marginTaxType: 'deal_out', amount: '-60', total: '40', ts: T + 1_000 },
    // A swap leg and a deal leg at one instant: different kinds, no trade.
    { recordId: '103', coin: 'BTC', marginTaxType: 'exchange_out', amount: '-0.0001', ts: T + 2_000 },
    { recordId: '104', coin: 'USDT', marginTaxType: 'deal_in', amount: '6', ts: T + 2_000 },
    // A loan with a fee on the coins coming in; interest; a type nobody documented.
    { recordId: '105', coin: 'USDT', marginTaxType: 'borrow', amount: '50', fee: '-0.5', ts: T + 3_000 },
    { recordId: '106', coin: 'USDT', marginTaxType: 'interest_repay', amount: '-0.2', ts: T + 4_000 },
    { recordId: '107', coin: 'USDT', marginTaxType: 'airdrop_in', amount: '1', ts: T + 5_000 },
    { recordId: '108', coin: 'USDT', marginTaxType: 'confiscated', amount: '-1', ts: T + 6_000 },
  ]);
  await insertP2pLedger(db.url, accountId, [
    { recordId: '200', coin: 'USDT', p2pTaxType: 'buy', total: '30', ts: T + 7_000 },
    { recordId: '201', coin: 'USDT', p2pTaxType: 'sell', total: '10', ts: T + 8_000 },
    { recordId: '202', coin: 'USDT', p2pTaxType: 'transfer_in', total: '7', ts: T + 9_000 },
  ]);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const march = (report: string) => exportRows(db.url, accountId, dir, report, '2026-03-01', '2026-03-31');
const byHash = (rows: Record<string, string>[], hash: string) => rows.find((r) => r.TxHash === hash);

describe('the margin and P2P wallets in the Koinly and CoinTracking files', () => {
  it('Koinly: a trade of two legs, legs of other kinds apart and flagged, transfers with their spot id, labels by treatment', async () => {
    const { rows, manifest } = await march('koinly-margin');
    expect(rows.map((r) => r.TxHash)).toEqual([
      'spot:5000',
      'margin:102',
      'margin:103',
      'margin:104',
      'margin:105',
      'margin:105:fee',
      'margin:106',
      'margin:107',
      'margin:108',
    ]);
    // The transfer: a deposit of the same time, coin and amount as spot's withdrawal, and its TxHash.
    expect(byHash(rows, 'spot:5000')).toMatchObject({
      'Received Amount': '100',
      'Received Currency': 'USDT',
      Label: '',
    });
    // The buy: one row, named by its given leg (102, the USDT paid), the fee taken from the BTC received.
    const trade = rows.find((r) => r.Description?.includes('margin:102+margin:101'))!;
    expect(trade).toMatchObject({
      'Sent Amount': '60',
      'Sent Currency': 'USDT',
      'Received Amount': '0.001',
      'Received Currency': 'BTC',
      'Fee Amount': '0.000001',
      'Fee Currency': 'BTC',
      Label: '',
      TxHash: 'margin:102',
    });
    expect(byHash(rows, 'margin:103')).toMatchObject({ 'Sent Amount': '0.0001', 'Sent Currency': 'BTC' });
    expect(byHash(rows, 'margin:104')).toMatchObject({ 'Received Amount': '6', 'Received Currency': 'USDT' });
    expect(manifest.unpairedLegs).toBe(2);
    // The loan: a `Margin loan` deposit without its fee, the fee a `Cost` row of its own.
    expect(byHash(rows, 'margin:105')).toMatchObject({
      'Received Amount': '50',
      'Fee Amount': '',
      Label: 'Margin loan',
    });
    expect(byHash(rows, 'margin:105:fee')).toMatchObject({ 'Sent Amount': '0.5', Label: 'Cost' });
    expect(byHash(rows, 'margin:106')).toMatchObject({ 'Sent Amount': '0.2', Label: 'Margin fee' });
    expect(manifest.unmapped).toEqual({ rows: 1, values: { 'marginTaxType=airdrop_in': 1 } });
    expect(manifest.review).toEqual({ rows: 1, values: { confiscated: 1 } });
  });

  it('Koinly: the P2P wallet, its buy and sell counted for review, its transfer carrying the spot id', async () => {
    const { rows, manifest } = await march('koinly-p2p');
    expect(rows.map((r) => [r.TxHash, r['Received Amount'], r['Sent Amount'], r.Label])).toEqual([
      ['p2p:200', '30', '', ''],
      ['p2p:201', '', '10', ''],
      ['spot:5001', '7', '', ''],
    ]);
    expect(manifest.review).toEqual({ rows: 2, values: { buy: 1, sell: 1 } });
    // Both wallets' opening balances are stated (none before March here).
    expect(manifest.openingBalances).toMatchObject({ margin: {}, p2p: {} });
  });

  it('CoinTracking: each wallet its Exchange, the trade a Trade net of its fee, the costs by treatment', async () => {
    const { rows } = await march('cointracking');
    // The Exchange column is `<account> <wallet>` (the helper exports as the account `demo`).
    const exchanges = new Set(rows.map((r) => r.Exchange));
    expect([...exchanges].sort()).toEqual(['demo Margin', 'demo P2P', 'demo Spot']);
    const trade = rows.find((r) => r['Tx-ID'] === 'margin:102+margin:101')!;
    expect(trade).toMatchObject({
      Type: 'Trade',
      'Buy Amount': '0.000999',
      'Buy Currency': 'BTC',
      'Sell Amount': '60',
      Exchange: 'demo Margin',
    });
    const type = (id: string) => rows.find((r) => r['Tx-ID'] === id)?.Type;
    expect(type('margin:100')).toBe('Deposit');
    expect(type('margin:106')).toBe('Margin Fee');
    expect(type('margin:105:fee')).toBe('Other Fee');
    expect(type('p2p:202')).toBe('Deposit');
    expect(rows.find((r) => r['Tx-ID'] === 'spot:5001')).toMatchObject({
      Type: 'Withdrawal',
      Exchange: 'demo Spot',
    });
  });
});
