import { Decimal } from 'decimal.js';
import type pg from 'pg';

import { FILING_CURRENCY, type RulesMethod } from '../gains/gains-method.ts';
import { SuppliedCosts } from '../gains/supplied-costs.ts';
import { type UnknownCostArrival, unknownCostArrivals } from '../gains/unknown-cost-arrivals.ts';
import { minus, plain, plus, ZERO } from '../lots/lot-arithmetic.ts';
import { loadSuppliedLots } from './supplied-lots.ts';

export const RULES_METHODS: readonly RulesMethod[] = ['uk', 'de'];

/** One arrival of unknown cost (unknown-cost-arrivals.ts) and what of it lacks a cost, per method. */
export interface LackingDeposit extends UnknownCostArrival {
  lacking: Record<RulesMethod, string>;
}

/** Per coin: how much arrived of unknown cost and how much of it no supplied cost covers, per method. */
export interface UnknownCost {
  coin: string;
  /** How many arrivals (deposits, P2P buys, futures transfers in, own moves back beyond). */
  deposits: number;
  movedIn: string;
  /** Per method: the quantity its currency's supplied lots cover (GBP lots for uk, EUR for de). */
  supplied: Record<RulesMethod, string>;
  /** Per method: the quantity no supplied lot in its currency covers. */
  lacking: Record<RulesMethod, string>;
  /** Per method: how many of the arrivals lack a cost, wholly or in part. */
  arrivalsLacking: Record<RulesMethod, number>;
}

/**
 * Every arrival the gains walk takes in of unknown cost (unknownCostArrivals) with what of it
 * lacks a cost under each method: the supplied lots of live imports in the method's currency (GBP
 * for uk, EUR for de: the walks convert nothing) handed out as the walks hand them out
 * (SuppliedCosts, in the walk's arrival order: each takes from the coin's lots acquired at or
 * before it, oldest first). A lot in another currency (USD), or acquired after the arrival, covers
 * nothing here, as it prices nothing there.
 */
export async function depositsLackingCost(db: pg.Pool | pg.ClientBase, accountId: string): Promise<LackingDeposit[]> {
  const arrivals = await unknownCostArrivals(db, accountId);
  const lots = await loadSuppliedLots(db, accountId);
  const costs = Object.fromEntries(
    RULES_METHODS.map((m) => [m, new SuppliedCosts(lots, FILING_CURRENCY[m])]),
  ) as Record<RulesMethod, SuppliedCosts>;
  return arrivals.map((arrival) => {
    const lacking = {} as Record<RulesMethod, string>;
    const quantity = new Decimal(arrival.quantity);
    for (const method of RULES_METHODS) {
      const covered = costs[method]
        .take(arrival.coin, quantity, arrival.atMs)
        .reduce((sum, p) => plus(sum, p.quantity), ZERO);
      lacking[method] = plain(minus(quantity, covered));
    }
    return { ...arrival, lacking };
  });
}

/** The arrivals that lack a cost under some method, in the walk's order. */
export const lackingDeposits = (deposits: readonly LackingDeposit[]) =>
  deposits.filter((d) => RULES_METHODS.some((m) => d.lacking[m] !== '0'));

/**
 * What lacks a cost (docs/reports.md, "Unknown cost"), per coin, from depositsLackingCost: the
 * coins where any method lacks one; exact text.
 */
export function unknownCostsOf(deposits: readonly LackingDeposit[]): UnknownCost[] {
  type Entry = {
    deposits: number;
    movedIn: Decimal;
    lacking: Record<RulesMethod, Decimal>;
    count: Record<RulesMethod, number>;
  };
  const byCoin = new Map<string, Entry>();
  for (const d of deposits) {
    const entry = byCoin.get(d.coin) ?? {
      deposits: 0,
      movedIn: ZERO,
      lacking: { uk: ZERO, de: ZERO },
      count: { uk: 0, de: 0 },
    };
    entry.deposits++;
    entry.movedIn = plus(entry.movedIn, new Decimal(d.quantity));
    for (const m of RULES_METHODS) {
      entry.lacking[m] = plus(entry.lacking[m], new Decimal(d.lacking[m]));
      if (d.lacking[m] !== '0') entry.count[m]++;
    }
    byCoin.set(d.coin, entry);
  }
  return [...byCoin]
    .filter(([, e]) => RULES_METHODS.some((m) => !e.lacking[m].isZero()))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([coin, e]) => ({
      coin,
      deposits: e.deposits,
      movedIn: plain(e.movedIn),
      supplied: { uk: plain(minus(e.movedIn, e.lacking.uk)), de: plain(minus(e.movedIn, e.lacking.de)) },
      lacking: { uk: plain(e.lacking.uk), de: plain(e.lacking.de) },
      arrivalsLacking: e.count,
    }));
}

/** What lacks a cost, per coin (unknownCostsOf over depositsLackingCost). */
export async function unknownCosts(db: pg.Pool | pg.ClientBase, accountId: string): Promise<UnknownCost[]> {
  return unknownCostsOf(await depositsLackingCost(db, accountId));
}
