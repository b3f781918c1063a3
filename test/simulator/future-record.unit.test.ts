import { Decimal } from 'decimal.js';
import { describe, expect, it, onTestFinished } from 'vitest';

import type { FuturesRecord } from '../../src/simulator/index.ts';
import { DAY, get, NOW, outcome, PATHS, useSimulator } from './support/fixture.ts';

const ctx = useSimulator();
const PRODUCT_OF: Record<string, string> = { USDT: 'USDT-FUTURES', USDC: 'USDC-FUTURES' };
const productOf = (coin: string) => PRODUCT_OF[coin] ?? 'COIN-FUTURES';

async function pageAll(params: Record<string, string | number>, limit: number): Promise<FuturesRecord[]> {
  const seen: FuturesRecord[] = [];
  let idLessThan: string | undefined;
  for (;;) {
    const res = await get<FuturesRecord[]>(ctx.sim, PATHS.futures, { ...params, limit, idLessThan });
    expect(res.status).toBe(200);
    if (res.json.data.length === 0) return seen;
    seen.push(...res.json.data);
    idLessThan = res.json.data.at(-1)!.id;
  }
}

/** Oldest first. */
const ledger = () => ctx.sim.truth('futures-ledger').reverse();

describe('future-record', () => {
  it('returns a bare array of the documented fields, newest first; productType defaults to USDT-FUTURES', async () => {
    const res = await get<FuturesRecord[]>(ctx.sim, PATHS.futures, { startTime: NOW - 30 * DAY, endTime: NOW });
    expect(outcome(res)).toEqual({ status: 200, code: '00000', msg: 'success' });
    expect(Object.keys(res.json.data[0]!)).toEqual([
      'id',
      'symbol',
      'marginCoin',
      'futureTaxType',
      'amount',
      'fee',
      'ts',
    ]);
    const expected = ctx.sim
      .truth('futures-ledger')
      .filter((r) => r.marginCoin === 'USDT' && Number(r.ts) >= NOW - 30 * DAY);
    expect(res.json.data).toEqual(expected.slice(0, 500));
  });

  it('pages a 30-day window of each productType by idLessThan, each record once', async () => {
    const [startTime, endTime] = [NOW - 60 * DAY, NOW - 30 * DAY];
    for (const productType of ['USDT-FUTURES', 'COIN-FUTURES', 'USDC-FUTURES']) {
      const seen = await pageAll({ productType, startTime, endTime }, 37);
      const expected = ctx.sim
        .truth('futures-ledger')
        .filter((r) => productOf(r.marginCoin) === productType && Number(r.ts) >= startTime && Number(r.ts) <= endTime);
      expect(expected.length).toBeGreaterThan(37);
      expect(seen).toEqual(expected);
    }
  });

  it('filters by marginCoin within a productType', async () => {
    const seen = await pageAll(
      { productType: 'COIN-FUTURES', marginCoin: 'BTC', startTime: NOW - 30 * DAY, endTime: NOW },
      500,
    );
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.marginCoin === 'BTC')).toBe(true);
  });

  it('every spot transfer has its opposite transfer in futures, a margin account or the P2P wallet: same coin, amount and ts', () => {
    const spot = ctx.sim
      .truth('spot')
      .filter((r) => r.spotTaxType === 'Transfer in' || r.spotTaxType === 'Transfer out');
    const futures = ledger().filter((r) => r.futureTaxType.startsWith('TRANSFER_'));
    const key = (coin: string, amount: string, ts: string) => `${coin} ${new Decimal(amount).toFixed()} ${ts}`;
    const pending = new Map<string, number>();
    for (const r of futures)
      pending.set(key(r.marginCoin, r.amount, r.ts), (pending.get(key(r.marginCoin, r.amount, r.ts)) ?? 0) + 1);
    // The other wallets' transfers (wallet-sides.ts): each must be taken by a spot transfer, none left.
    const others = [
      ...ctx.sim
        .truth('margin-ledger')
        .filter((r) => r.marginTaxType.startsWith('transfer_'))
        .map((r) => key(r.coin, r.amount, r.ts)),
      ...ctx.sim
        .truth('p2p-ledger')
        .filter((r) => r.p2pTaxType.startsWith('transfer_'))
        .map((r) => key(r.coin, r.p2pTaxType === 'transfer_in' ? r.total : `-${r.total}`, r.ts)),
    ];
    for (const k of others) pending.set(k, (pending.get(k) ?? 0) + 1);
    expect(spot.length).toBeGreaterThan(20);
    for (const r of spot) {
      const k = key(r.coin, new Decimal(r.amount).negated().toFixed(), r.ts);
      expect(pending.get(k), `spot ${r.id} ${r.spotTaxType}`).toBeGreaterThan(0);
      pending.set(k, pending.get(k)! - 1);
    }
    // What is left: one opening TRANSFER_IN per wallet, before any spot record.
    const left = futures.filter((r) => Number(r.ts) < Math.min(...spot.map((s) => Number(s.ts))));
    expect(left.map((r) => r.futureTaxType)).toEqual(Array(8).fill('TRANSFER_IN'));
    expect([...pending.values()].reduce((a, b) => a + b, 0)).toBe(8);
  });

  it('each closed position ties to its records: they sum to netProfit, the funding ones to totalFunding', () => {
    // Once every position has closed (the data runs 2 days past the anchor), no funding belongs to an open one.
    ctx.sim.clock.set(NOW + 3 * DAY);
    onTestFinished(() => void ctx.sim.clock.set(NOW));
    const records = ledger().filter((r) => r.symbol !== '');
    const positions = ctx.sim.truth('positions');
    expect(positions.length).toBeGreaterThan(100);
    // Records of one symbol in time order; each position claims its open, fundings and close.
    const bySymbol = new Map<string, FuturesRecord[]>();
    for (const r of records) bySymbol.set(r.symbol, [...(bySymbol.get(r.symbol) ?? []), r]);
    for (const p of positions.slice(0, 150)) {
      const side = p.holdSide === 'long' ? 'LONG' : 'SHORT';
      const mine = bySymbol
        .get(p.symbol!)!
        .filter((r) => Number(r.ts) >= Number(p.ctime!) && Number(r.ts) <= Number(p.utime!));
      const open = mine.find(
        (r) => r.futureTaxType === `OPEN_${side}` && r.ts === p.ctime! && new Decimal(r.fee).eq(p.openFee!),
      );
      const close = mine.find(
        (r) => r.ts === p.utime! && r.futureTaxType.endsWith(`CLOSE_${side}`) && new Decimal(r.amount).eq(p.pnl!),
      );
      expect(open, `open of ${p.positionId!}`).toBeDefined();
      expect(new Decimal(close!.fee).eq(p.closeFee!)).toBe(true);
      const sum = new Decimal(open!.fee).plus(close!.amount).plus(close!.fee).plus(p.totalFunding!);
      expect(sum.eq(p.netProfit!)).toBe(true);
    }
    // Funding records carry no position id: per symbol, they sum to the positions' totalFunding.
    for (const [symbol, list] of bySymbol) {
      const funding = list
        .filter((r) => r.futureTaxType.startsWith('CONTRACT_MAIN_SETTLE_FEE'))
        .reduce((sum, r) => sum.plus(r.amount), new Decimal(0));
      const expected = positions
        .filter((p) => p.symbol! === symbol)
        .reduce((sum, p) => sum.plus(p.totalFunding!), new Decimal(0));
      expect(funding.toFixed(), symbol).toBe(expected.toFixed());
    }
  });

  it('replaying each wallet from its first record never goes below zero and ends at its balance', () => {
    const balances = new Map<string, Decimal>();
    for (const r of ledger()) {
      const next = (balances.get(r.marginCoin) ?? new Decimal(0)).plus(r.amount).plus(r.fee);
      expect(next.isNegative(), `${r.marginCoin} after ${r.id}`).toBe(false);
      balances.set(r.marginCoin, next);
    }
    for (const wallet of ctx.sim.futuresBalances()) {
      expect(balances.get(wallet.marginCoin)?.toFixed(), wallet.marginCoin).toBe(new Decimal(wallet.balance).toFixed());
    }
  });

  it.each([
    [{ endTime: NOW }, '40019', 'Parameter startTime cannot be empty'],
    [
      { startTime: NOW - 31 * DAY, endTime: NOW },
      '00001',
      'startTime and endTime interval cannot be greater than 30 days',
    ],
    [{ startTime: NOW - DAY, endTime: NOW - 2 * DAY }, '40707', 'Start time is greater than end time'],
    [{ startTime: NOW - DAY, endTime: NOW, limit: 501 }, '40020', 'Parameter limit error'],
    [{ startTime: NOW - DAY, endTime: NOW, productType: 'SPOT' }, '40020', 'Parameter productType error'],
  ])('rejects %j with %s', async (params, code, msg) => {
    const res = await get(ctx.sim, PATHS.futures, params);
    expect(outcome(res)).toEqual({ status: 400, code, msg });
  });
});
