import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Decimal } from 'decimal.js';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseExportRequest } from '../../src/export/export-request.ts';
import { type ExportedFile, exportToFile } from '../../src/export/export-to-file.ts';
import { REPORTS } from '../../src/export/reports/index.ts';
import { FUTURES_WALLETS } from '../../src/simulator/data/futures-wallets.ts';
import { FUTURES_MARKETS } from '../../src/simulator/data/markets.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { COINTRACKING_RULES, KOINLY_RULES, replay, type ToolRules } from './replay/tool-balance-rules.ts';
import { insertAccount, insertTruth, parseCsv, type Truth } from './seed.ts';

/**
 * Issue 26: the demo account's year, and each of its months, exported to Koinly and CoinTracking
 * and replayed coin by coin as each tool computes balances (replay/tool-balance-rules.ts, written
 * from the tools' documentation), against the exchange's own records. Two wallets: spot and
 * futures (Koinly: a file each, `koinly` and `koinly-futures`; CoinTracking: one file, the Exchange
 * column naming the wallet). Per wallet and coin the replayed change equals the exchange's change
 * (spot: its records; futures: the futures ledger's), the running balance from the manifest's
 * opening balances never goes below zero, every spot and futures record of the period is in
 * exactly one row (nothing left out), and every spot<->futures move is a pair the tool matches.
 * A spot move to or from a margin account or the P2P wallet (about three in ten of the simulator's,
 * wallet-sides.ts) is a row of the spot file with no other side: those wallets have no tool file
 * yet (issue 35, item 6), so such moves are counted, not paired.
 * A last period from the year's start to the simulator's now ends at the exchange's balances.
 */
const db = useTestDatabase('taxreplay');
const NOW = Date.UTC(2026, 9, 15, 12, 0, 0);
const YEAR = { from: '2025-10-01', to: '2026-09-30' };
const TO_NOW = { from: YEAR.from, to: '2026-10-15' };
const TOOLS: readonly ToolRules[] = [KOINLY_RULES, COINTRACKING_RULES];
// The column naming each row's records, and its stable id.
const ROW_ID: Record<ToolRules['tool'], string> = { koinly: 'TxHash', cointracking: 'Tx-ID' };
const RECORDS_TEXT: Record<ToolRules['tool'], string> = { koinly: 'Description', cointracking: 'Tx-ID' };
const WALLETS = ['spot', 'futures'] as const;
type WalletName = (typeof WALLETS)[number];

type Row = Record<string, string>;
let truth: Truth & { futuresLedger: Row[] };
let futuresNow: Map<string, Decimal>;
// The ids of the spot transfers whose other side is a margin account or the P2P wallet.
let otherWalletMoves: Set<string>;
let accountId: string;
let dir: string;

const zero = () => new Decimal(0);
const utc = (day: string) => DateTime.fromISO(day, { zone: 'UTC' }).toMillis();
// The exchange's order of records: time, then the id's numeric order.
const exchangeOrder = (a: Row, b: Row) =>
  Number(a.ts) - Number(b.ts) || a.id!.length - b.id!.length || (a.id! < b.id! ? -1 : a.id! > b.id! ? 1 : 0);
const add = (map: Map<string, Decimal>, coin: string, value: Decimal.Value) =>
  map.set(coin, (map.get(coin) ?? zero()).plus(value));

async function exportRows(report: string, from: string, to: string) {
  const request = parseExportRequest({ report, accountId, from, to, tz: 'UTC' });
  const file: ExportedFile = await exportToFile({
    databaseUrl: db.url,
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

/** The record ids of a kind a row names (a BGB fee on its Koinly trade row included; `:fee` rows name none of their own). */
function recordsOf(text: string, kind: 'spot' | 'futures'): string[] {
  if (new RegExp(`${kind}:\\S+:fee`).test(text)) return [];
  return [...text.matchAll(new RegExp(`${kind}:([^\\s+,:]+)`, 'g'))].map((m) => m[1]!);
}

/** The file's rows with their wallet: Koinly's by file, CoinTracking's by its Exchange column. */
async function walletRows(tool: ToolRules['tool'], from: string, to: string) {
  if (tool === 'koinly') {
    const spot = await exportRows('koinly', from, to);
    const futures = await exportRows('koinly-futures', from, to);
    expect(futures.manifest.openingBalances).toEqual(spot.manifest.openingBalances);
    const rows = [
      ...spot.rows.map((row) => ({ row, wallet: 'spot' as WalletName })),
      ...futures.rows.map((row) => ({ row, wallet: 'futures' as WalletName })),
    ];
    return { rows, manifests: [spot.manifest, futures.manifest] };
  }
  const file = await exportRows('cointracking', from, to);
  const rows = file.rows.map((row) => {
    expect(['demo Spot', 'demo Futures']).toContain(row.Exchange);
    return { row, wallet: (row.Exchange === 'demo Futures' ? 'futures' : 'spot') as WalletName };
  });
  return { rows, manifests: [file.manifest] };
}

beforeAll(async () => {
  const sim = await startSimulator({ scale: 'demo', now: NOW, seed: 42, rateLimits: { enabled: false } });
  try {
    const productTypeOfCoin = new Map(FUTURES_WALLETS.map((w) => [w.marginCoin, w.productType]));
    truth = {
      spot: sim.truth('spot').map((r) => ({ ...r })),
      positions: sim.truth('positions').map((r) => ({ ...r })),
      transfers: sim.truth('transfers').map((r) => ({ ...r })),
      futuresLedger: sim
        .truth('futures-ledger')
        .map((r) => ({ ...r, productType: productTypeOfCoin.get(r.marginCoin)! })),
    };
    futuresNow = new Map();
    for (const b of sim.futuresBalances()) add(futuresNow, b.marginCoin, b.balance);
    // Each margin or P2P transfer is a spot transfer's other side: same instant, coin and quantity.
    const moveKey = (ts: string, coin: string, amount: string) =>
      `${ts}|${coin}|${new Decimal(amount).abs().toString()}`;
    const otherSides = new Map<string, number>();
    const count = (k: string) => otherSides.set(k, (otherSides.get(k) ?? 0) + 1);
    for (const r of sim.truth('margin-ledger'))
      if (/^transfer_(in|out)$/.test(r.marginTaxType)) count(moveKey(r.ts, r.coin, r.amount));
    for (const r of sim.truth('p2p-ledger'))
      if (/^transfer_(in|out)$/.test(r.p2pTaxType)) count(moveKey(r.ts, r.coin, r.total));
    otherWalletMoves = new Set();
    for (const r of truth.spot.filter((x) => /^Transfer (in|out)$/.test(x.spotTaxType!))) {
      const k = moveKey(r.ts!, r.coin!, r.amount!);
      if ((otherSides.get(k) ?? 0) === 0) continue;
      otherSides.set(k, otherSides.get(k)! - 1);
      otherWalletMoves.add(r.id!);
    }
    expect(
      [...otherSides.values()].filter((n) => n > 0),
      'margin and P2P transfers without a spot side',
    ).toEqual([]);
  } finally {
    await sim.close();
  }
  truth.spot.sort(exchangeOrder);
  accountId = await insertAccount(db.url, 'demo');
  const productType = new Map(FUTURES_MARKETS.map((m) => [m.symbol, m.productType]));
  await insertTruth(db.url, accountId, truth, (symbol) => productType.get(symbol)!);
  dir = await mkdtemp(path.join(tmpdir(), 'll-tax-replay-'));
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Per wallet and coin: the exchange's change, the replayed change, the lowest running balance, the closing. */
interface CoinFigures {
  exchange: Decimal;
  replayed: Decimal;
  lowest: Decimal;
  closing: Decimal;
}
type PeriodCheck = Record<WalletName, Map<string, CoinFigures>>;

/** Exports one period for one tool and checks it against the exchange's records; returns the figures. */
async function replayPeriod(rules: ToolRules, from: string, to: string): Promise<PeriodCheck> {
  const start = utc(from);
  const end = DateTime.fromISO(to, { zone: 'UTC' }).plus({ days: 1 }).toMillis();
  const { rows, manifests } = await walletRows(rules.tool, from, to);
  const label = `${rules.tool} ${from}..${to}`;
  const records: Record<WalletName, Row[]> = { spot: truth.spot, futures: truth.futuresLedger };
  const inPeriod = (w: WalletName) => records[w].filter((r) => Number(r.ts) >= start && Number(r.ts) < end);
  const before = (w: WalletName) => records[w].filter((r) => Number(r.ts) < start);

  // Opening balances: spot's from the exchange's balance column, futures' the sum of its records.
  const opening = { spot: new Map<string, Decimal>(), futures: new Map<string, Decimal>() };
  for (const r of before('spot')) opening.spot.set(r.coin!, new Decimal(r.balance!));
  for (const r of before('futures')) add(opening.futures, r.marginCoin!, new Decimal(r.amount!).plus(r.fee!));
  const stated = (w: WalletName) =>
    Object.fromEntries([...opening[w]].filter(([, v]) => !v.isZero()).map(([coin, v]) => [coin, v])) as Record<
      string,
      Decimal
    >;
  for (const manifest of manifests) {
    for (const w of WALLETS) {
      const inManifest = manifest.openingBalances?.[w] ?? {};
      expect(Object.keys(inManifest).sort(), `${label} ${w} opening`).toEqual(Object.keys(stated(w)).sort());
      for (const [coin, v] of Object.entries(stated(w)))
        expect(new Decimal(inManifest[coin]!).equals(v), `${label} ${w} ${coin} opening`).toBe(true);
    }
    // Nothing is left out any more: the moves between spot and futures are rows on both wallets.
    expect(manifest.omitted, label).toEqual({ rows: 0, values: {} });
  }

  // Every record of the period in exactly one row of its wallet.
  for (const w of WALLETS) {
    const named = new Map<string, number>();
    for (const { row, wallet } of rows) {
      const ids = recordsOf(row[RECORDS_TEXT[rules.tool]]!, w);
      if (ids.length > 0) expect(wallet, `${label}: ${w} record in the ${wallet} wallet`).toBe(w);
      for (const id of ids) named.set(id, (named.get(id) ?? 0) + 1);
    }
    expect(
      [...named].filter(([, n]) => n > 1),
      `${label} ${w} named twice`,
    ).toEqual([]);
    const ids = new Set(inPeriod(w).map((r) => r.id!));
    expect(
      inPeriod(w)
        .filter((r) => !named.has(r.id!))
        .map((r) => r.id),
      `${label} ${w} records without a row`,
    ).toEqual([]);
    expect(
      [...named.keys()].filter((id) => !ids.has(id)),
      `${label}: ${w} rows outside the period`,
    ).toEqual([]);
  }

  // Per wallet and coin: replayed change == the exchange's change; the running balance never below zero.
  const openingText = Object.fromEntries(
    WALLETS.map((w) => [w, Object.fromEntries([...opening[w]].map(([c, v]) => [c, v.toString()]))]),
  );
  const byRow = new Map(rows.map(({ row, wallet }) => [row, wallet]));
  const replayed = replay(
    rows.map(({ row }) => row),
    rules,
    (row) => byRow.get(row)!,
    openingText,
  );
  const result: PeriodCheck = { spot: new Map(), futures: new Map() };
  for (const w of WALLETS) {
    const exchange = new Map<string, Decimal>();
    for (const r of inPeriod(w))
      add(exchange, w === 'spot' ? r.coin! : r.marginCoin!, new Decimal(r.amount!).plus(r.fee!));
    const wallet = replayed.get(w);
    const coins = new Set([...exchange.keys(), ...(wallet?.change.keys() ?? [])]);
    for (const coin of coins) {
      const figures: CoinFigures = {
        exchange: exchange.get(coin) ?? zero(),
        replayed: wallet?.change.get(coin) ?? zero(),
        lowest: wallet?.lowest.get(coin) ?? opening[w].get(coin) ?? zero(),
        closing: (opening[w].get(coin) ?? zero()).plus(wallet?.change.get(coin) ?? zero()),
      };
      result[w].set(coin, figures);
      expect(figures.replayed.toString(), `${label} ${w} ${coin} change`).toBe(figures.exchange.toString());
      expect(figures.lowest.isNegative(), `${label} ${w} ${coin} lowest ${figures.lowest.toString()}`).toBe(false);
    }
  }
  // Spot closes at the exchange's balance column.
  const spotClosing = new Map<string, string>();
  for (const r of truth.spot.filter((x) => Number(x.ts) < end)) spotClosing.set(r.coin!, r.balance!);
  for (const [coin, f] of result.spot)
    expect(f.closing.equals(spotClosing.get(coin) ?? 0), `${label} ${coin} closing`).toBe(true);

  // Every move between the wallets is a pair the tool matches.
  const transfers = (w: WalletName) =>
    rows
      .filter(
        ({ row, wallet }) =>
          wallet === w &&
          (w === 'spot'
            ? /^Transfer (in|out) /.test(row.Description ?? row.Comment ?? '')
            : /^TRANSFER_(IN|OUT) /.test(row.Description ?? row.Comment ?? '')),
      )
      .map(({ row }) => row);
  const allSpotMoves = transfers('spot');
  const futuresMoves = transfers('futures');
  expect(allSpotMoves.length, label).toBe(
    inPeriod('spot').filter((r) => /^Transfer (in|out)$/.test(r.spotTaxType!)).length,
  );
  // Moves to margin and P2P: in the spot file, each once, with no other side in these files (yet).
  const toOtherWallet = (row: Row) =>
    recordsOf(row[RECORDS_TEXT[rules.tool]]!, 'spot').some((id) => otherWalletMoves.has(id));
  expect(allSpotMoves.filter(toOtherWallet).length, `${label}: spot moves to margin and P2P`).toBe(
    inPeriod('spot').filter((r) => otherWalletMoves.has(r.id!)).length,
  );
  const spotMoves = allSpotMoves.filter((row) => !toOtherWallet(row));
  expect(futuresMoves.length, label).toBe(spotMoves.length + countUnpairedFutures(start, end));
  const key = (row: Row, direction: 'in' | 'out') =>
    rules.tool === 'koinly'
      ? // Koinly: same asset and amount, withdrawal not after the deposit, within 12 h, same TxHash.
        [
          row.Date,
          direction === 'in' ? row['Received Currency'] : row['Sent Currency'],
          new Decimal((direction === 'in' ? row['Received Amount'] : row['Sent Amount']) || 0).toString(),
          row.TxHash,
        ].join('|')
      : // CoinTracking: a Withdrawal from one Exchange and a Deposit to the other, same time, coin and amount.
        [
          row.Date,
          direction === 'in' ? row['Buy Currency'] : row['Sell Currency'],
          new Decimal((direction === 'in' ? row['Buy Amount'] : row['Sell Amount']) || 0).toString(),
          direction === 'in' ? row.Type === 'Deposit' : row.Type === 'Withdrawal',
        ].join('|');
  const isIn = (row: Row) => Boolean(row['Received Amount'] || row['Buy Amount']);
  const open = new Map<string, number>();
  for (const row of futuresMoves) {
    const k = key(row, isIn(row) ? 'in' : 'out');
    open.set(k, (open.get(k) ?? 0) + 1);
  }
  for (const row of spotMoves) {
    const k = key(row, isIn(row) ? 'in' : 'out');
    expect(open.get(k) ?? 0, `${label}: ${row[ROW_ID[rules.tool]]} has no counterpart`).toBeGreaterThan(0);
    open.set(k, open.get(k)! - 1);
  }
  return result;
}

/** Futures transfers with no spot side in the period (funded from outside before the first spot record). */
function countUnpairedFutures(start: number, end: number): number {
  const spot = new Map<string, number>();
  for (const r of truth.spot) {
    if (!/^Transfer (in|out)$/.test(r.spotTaxType!) || Number(r.ts) < start || Number(r.ts) >= end) continue;
    if (otherWalletMoves.has(r.id!)) continue;
    const k = `${r.ts}|${r.coin}|${new Decimal(r.amount!).neg().toString()}`;
    spot.set(k, (spot.get(k) ?? 0) + 1);
  }
  let unpaired = 0;
  for (const r of truth.futuresLedger) {
    if (!/^TRANSFER_/.test(r.futureTaxType!) || Number(r.ts) < start || Number(r.ts) >= end) continue;
    const k = `${r.ts}|${r.marginCoin}|${new Decimal(r.amount!).plus(r.fee!).toString()}`;
    if ((spot.get(k) ?? 0) > 0) spot.set(k, spot.get(k)! - 1);
    else unpaired++;
  }
  return unpaired;
}

describe('the tax-tool files replayed as each tool computes balances', () => {
  it('has a year of demo data with BGB fees, moves to futures and months starting after the first record', () => {
    expect(Number(truth.spot[0]!.ts)).toBeGreaterThan(utc(YEAR.from));
    expect(truth.spot.filter((r) => r.spotTaxType === 'Transaction fee deduct').length).toBeGreaterThan(100);
    expect(truth.spot.filter((r) => r.spotTaxType === 'Transfer out').length).toBeGreaterThan(100);
    expect(otherWalletMoves.size).toBeGreaterThan(100);
  });

  it('per wallet and coin, the year and each month replay to the exchange change, never below zero, every record once', async () => {
    const figures: string[] = [];
    for (const rules of TOOLS) {
      const year = await replayPeriod(rules, YEAR.from, YEAR.to);
      for (const w of WALLETS) {
        for (const [coin, f] of [...year[w]].sort(([a], [b]) => (a < b ? -1 : 1))) {
          figures.push([rules.tool, w, coin, f.exchange, f.replayed, f.lowest].join(' | '));
        }
      }
      for (
        let month = DateTime.fromISO(YEAR.from, { zone: 'UTC' });
        month < DateTime.fromISO(YEAR.to, { zone: 'UTC' });
        month = month.plus({ months: 1 })
      ) {
        await replayPeriod(rules, month.toISODate()!, month.endOf('month').toISODate()!);
      }
      // From before the account's first record to the simulator's now: each wallet ends at the exchange's balance.
      const all = await replayPeriod(rules, TO_NOW.from, TO_NOW.to);
      expect(Number(truth.futuresLedger.map((r) => Number(r.ts)).sort((x, y) => x - y)[0])).toBeGreaterThan(
        utc(TO_NOW.from),
      );
      for (const [coin, balance] of futuresNow) {
        expect(all.futures.get(coin)?.closing.toString() ?? '0', `${rules.tool} futures ${coin} now`).toBe(
          balance.toString(),
        );
      }
      for (const [coin, f] of all.futures) expect(f.closing.equals(futuresNow.get(coin) ?? 0), coin).toBe(true);
    }
    // The figures of the closing note (tool | wallet | coin | exchange change | replayed change | lowest running balance).
    console.log(['tool | wallet | coin | exchange | replayed | lowest', ...figures].join('\n'));
  }, 900_000);

  it("Koinly's TxHash: never empty, never shared in a file, the same row with the same hash in a later export", async () => {
    for (const report of ['koinly', 'koinly-futures']) {
      const year = await exportRows(report, YEAR.from, YEAR.to);
      const hashes = year.rows.map((r) => r.TxHash!);
      expect(hashes.length, report).toBeGreaterThan(100);
      expect(hashes.filter((h) => h === '')).toEqual([]);
      expect(hashes.length - new Set(hashes).size).toBe(0);
      const byHash = new Map(year.rows.map((r) => [r.TxHash!, r]));
      const march = await exportRows(report, '2026-03-01', '2026-03-31');
      // The futures wallet's March is its moves with spot only (77 rows with seed 42; the moves to
      // margin and P2P are not futures rows): more than 50.
      expect(march.rows.length, report).toBeGreaterThan(report === 'koinly' ? 100 : 50);
      for (const row of march.rows) expect(byHash.get(row.TxHash!), row.TxHash).toEqual(row);
    }
  }, 180_000);

  it('no CSV report has a cell a spreadsheet would take for a number of 16 digits or more', async () => {
    const bare = /^[+-]?\d{16,}$/;
    const WITH_IDS = [
      'spot-ledger',
      'futures-pnl',
      'broker-transfers',
      'koinly',
      'koinly-futures',
      'futures-ledger',
      'cointracking',
      'realized-gains',
      'income',
    ];
    let scanned = 0;
    for (const report of REPORTS.filter((r) => r.textFile === undefined)) {
      const { cells } = await exportRows(report.name, YEAR.from, YEAR.to);
      // The reports whose ids are checked here must have rows (a report of a stream this test does not seed may not).
      if (WITH_IDS.includes(report.name)) expect(cells.length, report.name).toBeGreaterThan(0);
      for (const row of cells) {
        for (const [i, cell] of row.entries()) {
          if (bare.test(cell)) expect.fail(`${report.name}: column ${i} holds ${cell}`);
          scanned++;
        }
      }
    }
    expect(scanned).toBeGreaterThan(100_000);
  }, 300_000);
});
