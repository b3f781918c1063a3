import { Decimal } from 'decimal.js';
import { DateTime } from 'luxon';
import { expect } from 'vitest';

import { add, type DemoYear, type Row, zero } from './demo-year.ts';
import { replay, type ToolRules } from './tool-balance-rules.ts';

/**
 * One period of the demo year exported for one tool, replayed as the tool computes balances, and
 * checked against the exchange's records (what is checked: tax-tool-replay.test.ts's header).
 */
// The column naming each row's records, and its stable id.
const ROW_ID: Record<ToolRules['tool'], string> = { koinly: 'TxHash', cointracking: 'Tx-ID' };
const RECORDS_TEXT: Record<ToolRules['tool'], string> = { koinly: 'Description', cointracking: 'Tx-ID' };
export const WALLETS = ['spot', 'futures'] as const;
export type WalletName = (typeof WALLETS)[number];

export const utc = (day: string) => DateTime.fromISO(day, { zone: 'UTC' }).toMillis();

/** The record ids of a kind a row names (a BGB fee on its Koinly trade row included; `:fee` rows name none of their own). */
function recordsOf(text: string, kind: 'spot' | 'futures'): string[] {
  if (new RegExp(`${kind}:\\S+:fee`).test(text)) return [];
  return [...text.matchAll(new RegExp(`${kind}:([^\\s+,:]+)`, 'g'))].map((m) => m[1]!);
}

/** The file's rows with their wallet: Koinly's by file, CoinTracking's by its Exchange column. */
async function walletRows(demo: DemoYear, tool: ToolRules['tool'], from: string, to: string) {
  if (tool === 'koinly') {
    const spot = await demo.exportRows('koinly', from, to);
    const futures = await demo.exportRows('koinly-futures', from, to);
    expect(futures.manifest.openingBalances).toEqual(spot.manifest.openingBalances);
    const rows = [
      ...spot.rows.map((row) => ({ row, wallet: 'spot' as WalletName })),
      ...futures.rows.map((row) => ({ row, wallet: 'futures' as WalletName })),
    ];
    return { rows, manifests: [spot.manifest, futures.manifest] };
  }
  const file = await demo.exportRows('cointracking', from, to);
  const rows = file.rows.map((row) => {
    expect(['demo Spot', 'demo Futures']).toContain(row.Exchange);
    return { row, wallet: (row.Exchange === 'demo Futures' ? 'futures' : 'spot') as WalletName };
  });
  return { rows, manifests: [file.manifest] };
}

/** Per wallet and coin: the exchange's change, the replayed change, the lowest running balance, the closing. */
export interface CoinFigures {
  exchange: Decimal;
  replayed: Decimal;
  lowest: Decimal;
  closing: Decimal;
}
export type PeriodCheck = Record<WalletName, Map<string, CoinFigures>>;

/** Exports one period for one tool and checks it against the exchange's records; returns the figures. */
export async function replayPeriod(demo: DemoYear, rules: ToolRules, from: string, to: string): Promise<PeriodCheck> {
  const { truth, otherWalletMoves } = demo;
  const start = utc(from);
  const end = DateTime.fromISO(to, { zone: 'UTC' }).plus({ days: 1 }).toMillis();
  const { rows, manifests } = await walletRows(demo, rules.tool, from, to);
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
  expect(futuresMoves.length, label).toBe(spotMoves.length + countUnpairedFutures(demo, start, end));
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
function countUnpairedFutures(demo: DemoYear, start: number, end: number): number {
  const { truth, otherWalletMoves } = demo;
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
