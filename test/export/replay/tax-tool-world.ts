import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { Decimal } from 'decimal.js';
import { expect } from 'vitest';

import { parseExportRequest } from '../../../src/export/export-request.ts';
import { type ExportedFile, exportToFile } from '../../../src/export/export-to-file.ts';
import { REPORTS } from '../../../src/export/reports/index.ts';
import { FUTURES_WALLETS } from '../../../src/simulator/data/futures-wallets.ts';
import { FUTURES_MARKETS } from '../../../src/simulator/data/markets.ts';
import { startSimulator } from '../../../src/simulator/index.ts';
import { insertAccount, insertTruth, parseCsv } from '../seed.ts';
import type { ToolRules } from './tool-balance-rules.ts';

/**
 * The demo account's year as the exchange states it, wallet by wallet (spot, futures, margin, P2P),
 * stored in a test database as ingestion stores it, and each tool's files of a period read back
 * as rows with their wallet. The replay (period-replay.ts) judges the files against these records.
 */
export const WALLETS = ['spot', 'futures', 'margin', 'p2p'] as const;
export type WalletName = (typeof WALLETS)[number];
export type Row = Record<string, string>;

/** One record of a wallet, as the exchange states it: what it moves the wallet's coin by. */
export interface WalletRecord {
  readonly id: string;
  readonly ts: number;
  readonly coin: string;
  readonly change: Decimal;
  /** Margin: the marginType (each its own running total); '' elsewhere. */
  readonly scope: string;
  /** The exchange's balance of (scope, coin) after the record: spot's `balance`, margin's `total`. */
  readonly runningBalance: string | undefined;
  /** A move to or from spot (spot: to or from another wallet). */
  readonly transfer: boolean;
}

export interface World {
  readonly accountId: string;
  /** Each wallet's records in the exchange's order (time, then the id's numeric order). */
  readonly records: Readonly<Record<WalletName, readonly WalletRecord[]>>;
  /** Each spot transfer's other side, from the exchange's records (same instant, coin and quantity). */
  readonly otherSide: ReadonlyMap<string, Exclude<WalletName, 'spot'>>;
  /** The futures wallets' balances at the simulator's now, per margin coin. */
  readonly futuresNow: ReadonlyMap<string, Decimal>;
}

const exchangeOrder = (a: WalletRecord, b: WalletRecord) =>
  a.ts - b.ts || a.id.length - b.id.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function record(r: Row, coin: string, change: Decimal.Value, transfer: RegExp, scope = '', running?: string) {
  return {
    id: r.id!,
    ts: Number(r.ts),
    coin,
    change: new Decimal(change),
    scope,
    runningBalance: running,
    transfer: transfer.test(r.spotTaxType ?? r.futureTaxType ?? r.marginTaxType ?? r.p2pTaxType ?? ''),
  };
}

/** The simulator's demo account (seed 42) at `now`, stored for `db` under the account `demo`. */
export async function buildWorld(databaseUrl: string, now: number): Promise<World> {
  const sim = await startSimulator({ scale: 'demo', now, seed: 42, rateLimits: { enabled: false } });
  const productTypeOfCoin = new Map(FUTURES_WALLETS.map((w) => [w.marginCoin, w.productType]));
  const truth = {
    spot: sim.truth('spot').map((r) => ({ ...r })),
    positions: sim.truth('positions').map((r) => ({ ...r })),
    transfers: sim.truth('transfers').map((r) => ({ ...r })),
    futuresLedger: sim
      .truth('futures-ledger')
      .map((r) => ({ ...r, productType: productTypeOfCoin.get(r.marginCoin)! })),
    // The simulator's isolated account is the one with a symbol (src/simulator/ledgers/margin.ts).
    marginLedger: sim.truth('margin-ledger').map((r) => ({ ...r, marginType: r.symbol ? 'isolated' : 'crossed' })),
    p2pLedger: sim.truth('p2p-ledger').map((r) => ({ ...r })),
  };
  const futuresNow = new Map<string, Decimal>();
  for (const b of sim.futuresBalances())
    futuresNow.set(b.marginCoin, (futuresNow.get(b.marginCoin) ?? new Decimal(0)).plus(b.balance));
  await sim.close();

  const p2pSign = (type: string) => (type === 'buy' || type === 'transfer_in' ? 1 : -1);
  const records: Record<WalletName, WalletRecord[]> = {
    spot: truth.spot.map((r) =>
      record(r, r.coin, new Decimal(r.amount).plus(r.fee), /^Transfer (in|out)$/, '', r.balance),
    ),
    futures: truth.futuresLedger.map((r) => record(r, r.marginCoin, new Decimal(r.amount).plus(r.fee), /^TRANSFER_/)),
    margin: truth.marginLedger.map((r) =>
      record(r, r.coin, new Decimal(r.amount).plus(r.fee), /^transfer_(in|out)$/, r.marginType, r.total),
    ),
    p2p: truth.p2pLedger.map((r) =>
      record(r, r.coin, new Decimal(r.total).times(p2pSign(r.p2pTaxType)), /^transfer_(in|out)$/),
    ),
  };
  for (const w of WALLETS) records[w].sort(exchangeOrder);

  // Each margin, P2P or futures transfer is a spot transfer's other side: same instant, coin and quantity.
  const key = (r: WalletRecord, sign: 1 | -1) => `${r.ts}|${r.coin}|${r.change.times(sign).toString()}`;
  const open = new Map<string, string[]>();
  for (const r of records.spot.filter((x) => x.transfer)) open.set(key(r, 1), [...(open.get(key(r, 1)) ?? []), r.id]);
  const otherSide = new Map<string, Exclude<WalletName, 'spot'>>();
  const unpaired: Record<string, number> = {};
  for (const w of ['margin', 'p2p', 'futures'] as const) {
    for (const r of records[w].filter((x) => x.transfer)) {
      const id = open.get(key(r, -1))?.shift();
      if (id === undefined) unpaired[w] = (unpaired[w] ?? 0) + 1;
      else otherSide.set(id, w);
    }
  }
  // Only futures may hold a transfer with no spot side (funded from outside before the first spot record).
  expect(unpaired.margin ?? 0, 'margin transfers without a spot side').toBe(0);
  expect(unpaired.p2p ?? 0, 'P2P transfers without a spot side').toBe(0);

  const accountId = await insertAccount(databaseUrl, 'demo');
  const productType = new Map(FUTURES_MARKETS.map((m) => [m.symbol, m.productType]));
  await insertTruth(databaseUrl, accountId, truth, (symbol) => productType.get(symbol)!);
  return { accountId, records, otherSide, futuresNow };
}

/** One report of one period exported to `dir` (UTC), its rows keyed by the header. */
export async function exportRows(
  databaseUrl: string,
  accountId: string,
  dir: string,
  report: string,
  from: string,
  to: string,
) {
  const request = parseExportRequest({ report, accountId, from, to, tz: 'UTC' });
  const file: ExportedFile = await exportToFile({
    databaseUrl,
    request,
    account: { id: accountId, name: 'demo' },
    csvPath: path.join(
      dir,
      `${report}-${from}-${to}.${REPORTS.find((r) => r.name === report)?.textFile ? 'txt' : 'csv'}`,
    ),
  });
  const [header, ...cells] = parseCsv(await readFile(file.csvPath, 'utf8'));
  const rows = cells.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i] ?? ''])) as Row);
  return { rows, cells, manifest: file.manifest };
}

/** Koinly's file of each wallet (the spot wallet's is `koinly`). */
export const koinlyFile = (w: WalletName) => (w === 'spot' ? 'koinly' : `koinly-${w}`);
const EXCHANGE: Record<string, WalletName> = {
  'demo Spot': 'spot',
  'demo Futures': 'futures',
  'demo Margin': 'margin',
  'demo P2P': 'p2p',
};

/** A tool's files of one period as rows with their wallet: Koinly's by file, CoinTracking's by its Exchange column. */
export async function walletRows(
  databaseUrl: string,
  accountId: string,
  dir: string,
  tool: ToolRules['tool'],
  from: string,
  to: string,
) {
  if (tool === 'koinly') {
    const files = await Promise.all(
      WALLETS.map((w) => exportRows(databaseUrl, accountId, dir, koinlyFile(w), from, to)),
    );
    for (const file of files) expect(file.manifest.openingBalances).toEqual(files[0]!.manifest.openingBalances);
    const rows = files.flatMap((file, i) => file.rows.map((row) => ({ row, wallet: WALLETS[i]! })));
    return { rows, manifests: files.map((f) => f.manifest) };
  }
  const file = await exportRows(databaseUrl, accountId, dir, 'cointracking', from, to);
  const rows = file.rows.map((row) => {
    expect(Object.keys(EXCHANGE)).toContain(row.Exchange);
    return { row, wallet: EXCHANGE[row.Exchange!]! };
  });
  return { rows, manifests: [file.manifest] };
}
