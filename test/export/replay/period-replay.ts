import { Decimal } from 'decimal.js';
import { DateTime } from 'luxon';
import { expect } from 'vitest';

import { type Row, type WalletName, type WalletRecord, walletRows, WALLETS, type World } from './tax-tool-world.ts';
import { replay, type ToolRules } from './tool-balance-rules.ts';

/** Per wallet and coin: the exchange's change, the replayed change, the lowest running balance, the closing. */
export interface CoinFigures {
  exchange: Decimal;
  replayed: Decimal;
  lowest: Decimal;
  closing: Decimal;
}
export type PeriodCheck = Record<WalletName, Map<string, CoinFigures>>;

// The column naming each row's records, and its stable id.
const ROW_ID: Record<ToolRules['tool'], string> = { koinly: 'TxHash', cointracking: 'Tx-ID' };
const RECORDS_TEXT: Record<ToolRules['tool'], string> = { koinly: 'Description', cointracking: 'Tx-ID' };

const zero = () => new Decimal(0);
const add = (map: Map<string, Decimal>, coin: string, value: Decimal.Value) =>
  map.set(coin, (map.get(coin) ?? zero()).plus(value));

/** The record ids of a wallet a row names (a BGB fee on its Koinly trade row included; `:fee` rows name none of their own). */
export function recordsOf(text: string, kind: WalletName): string[] {
  if (new RegExp(`(^|[\\s+])${kind}:\\S+:fee`).test(text)) return [];
  return [...text.matchAll(new RegExp(`(?:^|[\\s+])${kind}:([^\\s+,:]+)`, 'g'))].map((m) => m[1]!);
}

/**
 * The exchange's balance per coin after the records before `end`: the running balance of each
 * (scope, coin)'s last record summed over scopes (spot's `balance`, margin's `total`), or, for a
 * wallet the exchange states none of (futures, P2P), the sum of its records.
 */
export function exchangeBalances(records: readonly WalletRecord[], end: number): Map<string, Decimal> {
  const last = new Map<string, WalletRecord>();
  const sums = new Map<string, Decimal>();
  for (const r of records.filter((x) => x.ts < end)) {
    last.set(`${r.scope}|${r.coin}`, r);
    add(sums, r.coin, r.change);
  }
  if (records.every((r) => r.runningBalance === undefined)) return sums;
  const balances = new Map<string, Decimal>();
  for (const r of last.values()) add(balances, r.coin, r.runningBalance!);
  return balances;
}

/**
 * Exports one period for one tool and checks it against the exchange's records, wallet by wallet:
 * the manifests' opening balances are the exchange's; every record of the period in exactly one
 * row of its wallet; per coin, the replayed change equals the exchange's and the running balance
 * never goes below zero; spot and margin close at the exchange's running balances; every move
 * between spot and another wallet is a pair the tool matches, with the wallet the exchange names.
 */
export async function replayPeriod(
  world: World,
  databaseUrl: string,
  dir: string,
  rules: ToolRules,
  from: string,
  to: string,
): Promise<PeriodCheck> {
  const start = DateTime.fromISO(from, { zone: 'UTC' }).toMillis();
  const end = DateTime.fromISO(to, { zone: 'UTC' }).plus({ days: 1 }).toMillis();
  const { rows, manifests } = await walletRows(databaseUrl, world.accountId, dir, rules.tool, from, to);
  const label = `${rules.tool} ${from}..${to}`;
  const inPeriod = (w: WalletName) => world.records[w].filter((r) => r.ts >= start && r.ts < end);
  const opening = Object.fromEntries(WALLETS.map((w) => [w, exchangeBalances(world.records[w], start)])) as Record<
    WalletName,
    Map<string, Decimal>
  >;

  for (const manifest of manifests) {
    for (const w of WALLETS) {
      const stated = [...opening[w]].filter(([, v]) => !v.isZero());
      const inManifest = (manifest.openingBalances as Record<string, Record<string, string>> | null)?.[w] ?? {};
      expect(Object.keys(inManifest).sort(), `${label} ${w} opening`).toEqual(stated.map(([c]) => c).sort());
      for (const [coin, v] of stated)
        expect(new Decimal(inManifest[coin]!).equals(v), `${label} ${w} ${coin} opening`).toBe(true);
    }
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
    const ids = new Set(inPeriod(w).map((r) => r.id));
    expect(
      inPeriod(w)
        .filter((r) => !named.has(r.id))
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
  const result = Object.fromEntries(WALLETS.map((w) => [w, new Map()])) as PeriodCheck;
  for (const w of WALLETS) {
    const exchange = new Map<string, Decimal>();
    for (const r of inPeriod(w)) add(exchange, r.coin, r.change);
    const wallet = replayed.get(w);
    for (const coin of new Set([...exchange.keys(), ...(wallet?.change.keys() ?? [])])) {
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
    // Each wallet closes at the exchange's balances (spot's balance column, margin's running totals).
    const closing = exchangeBalances(world.records[w], end);
    for (const [coin, f] of result[w])
      expect(f.closing.toString(), `${label} ${w} ${coin} closing`).toBe((closing.get(coin) ?? zero()).toString());
  }

  checkTransferPairs(world, rules, label, rows, inPeriod);
  return result;
}

/**
 * Every move between spot and another wallet is a pair the tool matches, on the wallet the
 * exchange's records name: Koinly a withdrawal and a deposit of the same time, coin, amount and
 * TxHash; CoinTracking a Withdrawal from one Exchange and a Deposit to the other, same time, coin
 * and amount. Only futures transfers with no spot side (funded from outside) are left alone.
 */
function checkTransferPairs(
  world: World,
  rules: ToolRules,
  label: string,
  rows: readonly { row: Row; wallet: WalletName }[],
  inPeriod: (w: WalletName) => WalletRecord[],
): void {
  const transferIds = Object.fromEntries(
    WALLETS.map((w) => [
      w,
      new Set(
        inPeriod(w)
          .filter((r) => r.transfer)
          .map((r) => r.id),
      ),
    ]),
  ) as Record<WalletName, Set<string>>;
  const moves = rows.filter(({ row, wallet }) =>
    recordsOf(row[RECORDS_TEXT[rules.tool]]!, wallet).some((id) => transferIds[wallet].has(id)),
  );
  const isIn = (row: Row) => Boolean(row['Received Amount'] || row['Buy Amount']);
  // A row's own side (time, coin, amount; Koinly: TxHash) and the direction of the wallet-ledger side it pairs with.
  const key = (row: Row, otherSideIn: boolean) => {
    const own = isIn(row);
    if (rules.tool === 'cointracking')
      expect(row.Type, `${label}: ${row['Tx-ID']}`).toBe(own ? 'Deposit' : 'Withdrawal');
    const [amountColumn, coinColumn] =
      rules.tool === 'koinly'
        ? own
          ? ['Received Amount', 'Received Currency']
          : ['Sent Amount', 'Sent Currency']
        : own
          ? ['Buy Amount', 'Buy Currency']
          : ['Sell Amount', 'Sell Currency'];
    const hash = rules.tool === 'koinly' ? row.TxHash : '';
    return [row.Date, row[coinColumn], new Decimal(row[amountColumn] || 0).toString(), hash, otherSideIn].join('|');
  };
  const open = new Map<string, { wallet: WalletName }[]>();
  for (const { row, wallet } of moves.filter((m) => m.wallet !== 'spot')) {
    const k = key(row, isIn(row));
    open.set(k, [...(open.get(k) ?? []), { wallet }]);
  }
  const spotMoves = moves.filter((m) => m.wallet === 'spot');
  expect(spotMoves.length, `${label} spot transfers`).toBe(transferIds.spot.size);
  const paired: Record<string, number> = {};
  for (const { row } of spotMoves) {
    const spotId = recordsOf(row[RECORDS_TEXT[rules.tool]]!, 'spot')[0]!;
    const expected = world.otherSide.get(spotId);
    const candidates = open.get(key(row, !isIn(row))) ?? [];
    const at = candidates.findIndex((c) => c.wallet === expected);
    expect(
      at,
      `${label}: ${row[ROW_ID[rules.tool]]} has no counterpart in the ${expected} wallet`,
    ).toBeGreaterThanOrEqual(0);
    candidates.splice(at, 1);
    paired[expected!] = (paired[expected!] ?? 0) + 1;
  }
  // What is left: futures transfers funded from outside, none of the other wallets'.
  const left = [...open.values()].flat();
  expect(
    left.filter((c) => c.wallet !== 'futures'),
    `${label}: margin and P2P transfers without a spot side`,
  ).toEqual([]);
  const futuresWithoutSpot = [...transferIds.futures].length - (paired.futures ?? 0);
  expect(left.length, `${label}: futures transfers without a spot side`).toBe(futuresWithoutSpot);
}
