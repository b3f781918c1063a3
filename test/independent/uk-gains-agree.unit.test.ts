import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';

import { SuppliedCosts } from '../../src/accounting/gains/supplied-costs.ts';
import { type UkMatch, UkMatcher } from '../../src/accounting/gains/uk-matching.ts';
import { walkHistory } from '../../src/accounting/gains/walk-history.ts';
import { memoryPriceBook } from '../../src/accounting/prices/memory-price-book.ts';
import type { PricePointInput } from '../../src/accounting/prices/price-point.ts';
import type { LedgerEntry } from '../../src/booking/ledger-entry.ts';
import { ukGainsByHand } from './uk-gains-by-hand.ts';

const DAY = 86_400_000;
const t0 = Date.UTC(2025, 4, 1, 12);
const e = (day: number, id: string, spotTypes: string, category: string, x: Partial<LedgerEntry>): LedgerEntry => ({
  atMs: t0 + day * DAY,
  sentAmount: null,
  sentCoin: null,
  receivedAmount: null,
  receivedCoin: null,
  feeAmount: null,
  feeCoin: null,
  category,
  spotTypes,
  recordIds: id,
  flag: null,
  ...x,
});
const D = (v: string) => new Decimal(v);

async function* from<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield await Promise.resolve(item);
}

/** ledgerline's UK gains per token and day (proceeds and allowable cost summed over the parts). */
async function codeGains(entries: LedgerEntry[], prices: PricePointInput[]) {
  const matcher = new UkMatcher('GBP');
  const options = { apportionTradeFees: true, supplied: new SuppliedCosts([], 'GBP') };
  const matches: UkMatch[] = [];
  for await (const ev of walkHistory(from(entries), memoryPriceBook('GBP', prices), matcher, options)) {
    if (ev.kind === 'disposal') matches.push(ev.match);
  }
  const byDay = new Map<string, { day: number; coin: string; proceeds: Decimal; cost: Decimal }>();
  for (const m of matches) {
    const day = Math.round((Date.parse(`${m.disposedOn}T12:00:00Z`) - t0) / DAY);
    const k = `${day} ${m.coin}`;
    const acc = byDay.get(k) ?? { day, coin: m.coin, proceeds: D('0'), cost: D('0') };
    acc.proceeds = acc.proceeds.plus(m.proceeds!);
    acc.cost = acc.cost.plus(m.cost!);
    byDay.set(k, acc);
  }
  return [...byDay.values()]
    .map((g) => ({
      day: g.day,
      coin: g.coin,
      proceeds: g.proceeds.toFixed(),
      cost: g.cost.toFixed(),
    }))
    .sort((a, b) => a.day - b.day || (a.coin < b.coin ? -1 : 1));
}

describe('the UK gains agree with an independent calculation (test/independent/uk-gains-by-hand.ts imports nothing of src/)', () => {
  it('same day, 30 days, the pool, a User fees disposal at market value and a BGB trade fee (TCGA92 s104, s105, s106A; CRYPTO22150)', async () => {
    const entries: LedgerEntry[] = [
      e(0, 'b1', 'Buy', 'trade', {
        sentAmount: D('20000'),
        sentCoin: 'GBP',
        receivedAmount: D('10'),
        receivedCoin: 'ETH',
      }),
      e(0, 'b2', 'Buy', 'trade', {
        sentAmount: D('100'),
        sentCoin: 'GBP',
        receivedAmount: D('10'),
        receivedCoin: 'BGB',
      }),
      e(5, 'uf', 'User fees', 'fee', { sentAmount: D('0.1'), sentCoin: 'ETH' }),
      e(10, 's1', 'Sell', 'trade', {
        sentAmount: D('4'),
        sentCoin: 'ETH',
        receivedAmount: D('12000'),
        receivedCoin: 'GBP',
        feeAmount: D('0.01'),
        feeCoin: 'ETH',
      }),
      e(10, 'b3', 'Buy', 'trade', {
        sentAmount: D('2900'),
        sentCoin: 'GBP',
        receivedAmount: D('1'),
        receivedCoin: 'ETH',
      }),
      e(12, 'b4', 'Buy', 'trade', {
        sentAmount: D('5600'),
        sentCoin: 'GBP',
        receivedAmount: D('2'),
        receivedCoin: 'ETH',
      }),
      e(60, 's2', 'Sell', 'trade', {
        sentAmount: D('3'),
        sentCoin: 'ETH',
        receivedAmount: D('9000'),
        receivedCoin: 'GBP',
        thirdFee: { amount: D('1'), coin: 'BGB', recordIds: 'f' },
      }),
      e(60, 'f', 'Transaction fee deduct', 'fee', { sentAmount: D('1'), sentCoin: 'BGB', attached: true }),
    ];
    const prices = [
      { at: new Date(t0 + 5 * DAY - 1000), base: 'ETH', quote: 'GBP', price: '2500', source: 't' },
      { at: new Date(t0 + 60 * DAY - 1000), base: 'BGB', quote: 'GBP', price: '15', source: 't' },
    ];
    const code = await codeGains(entries, prices);
    // The independent reading, from the same events in pounds with the fees applied as the rules say.
    const hand = ukGainsByHand([
      { day: 0, coin: 'ETH', quantity: '10', pounds: '20000' },
      { day: 0, coin: 'BGB', quantity: '10', pounds: '100' },
      { day: 5, coin: 'ETH', quantity: '-0.1', pounds: '250' },
      // 4 ETH sold for £12,000 and 0.01 ETH paying the fee: gross proceeds 12,000 + the fee at the
      // sale's price (12,000 x 0.01 / 4 = 30), the 30 an incidental cost (CRYPTO22150).
      { day: 10, coin: 'ETH', quantity: '-4.01', pounds: '12030', costs: '30' },
      { day: 10, coin: 'ETH', quantity: '1', pounds: '2900' },
      { day: 12, coin: 'ETH', quantity: '2', pounds: '5600' },
      { day: 60, coin: 'BGB', quantity: '-1', pounds: '15' },
      // 3 ETH for £9,000, the BGB fee (1 x £15) an incidental cost of the disposal (sold for pounds).
      { day: 60, coin: 'ETH', quantity: '-3', pounds: '9000', costs: '15' },
    ]);
    expect(code).toEqual(hand);
  });
  it('issue 42: a futures loss and its fee, a margin loan borrowed and repaid, a sale with its fee in pounds (CRYPTO22150, CRYPTO61620, TCGA92 s38(1)(c))', async () => {
    const usdt = (day: number, rate: string) => ({
      at: new Date(t0 + day * DAY - 1000),
      base: 'USDT',
      quote: 'GBP',
      price: rate,
      source: 't',
    });
    const btc = (day: number, p: string) => ({ ...usdt(day, p), base: 'BTC' });
    const entries: LedgerEntry[] = [
      e(0, 'u', 'Buy', 'trade', {
        sentAmount: D('8000'),
        sentCoin: 'GBP',
        receivedAmount: D('10000'),
        receivedCoin: 'USDT',
      }),
      e(0, 'b', 'Buy', 'trade', {
        sentAmount: D('10000'),
        sentCoin: 'GBP',
        receivedAmount: D('1'),
        receivedCoin: 'BTC',
      }),
      // A CLOSE_SHORT losing 4,714.4665 USDT with a fee of 107.609718 USDT.
      {
        ...e(40, 'futures:c', 'CLOSE_SHORT BTCUSDT realized', 'futures-loss', {
          sentAmount: D('4714.4665'),
          sentCoin: 'USDT',
          feeAmount: D('107.609718'),
          feeCoin: 'USDT',
        }),
        wallet: 'futures',
      },
      // 1 BTC borrowed on margin at 60,000 and repaid at 55,000.
      {
        ...e(80, 'margin:bo', 'borrow crossed', 'margin', { receivedAmount: D('1'), receivedCoin: 'BTC' }),
        wallet: 'margin',
      },
      { ...e(120, 'margin:re', 'repay crossed', 'margin', { sentAmount: D('1'), sentCoin: 'BTC' }), wallet: 'margin' },
      // 1 BTC sold for £70,000, the exchange keeping £70 of it.
      e(160, 's', 'Sell', 'trade', {
        sentAmount: D('1'),
        sentCoin: 'BTC',
        receivedAmount: D('70000'),
        receivedCoin: 'GBP',
        feeAmount: D('70'),
        feeCoin: 'GBP',
      }),
    ];
    const prices = [usdt(40, '0.75'), btc(80, '60000'), btc(120, '55000')];
    const code = await codeGains(entries, prices);
    const hand = ukGainsByHand([
      { day: 0, coin: 'USDT', quantity: '10000', pounds: '8000' },
      { day: 0, coin: 'BTC', quantity: '1', pounds: '10000' },
      // Everything paid out for the futures loss, its fee too, at market value: 4,822.076218 x 0.75.
      { day: 40, coin: 'USDT', quantity: '-4822.076218', pounds: '3616.5571635' },
      // The borrowed BTC acquired at market value; the repayment a disposal at market value.
      { day: 80, coin: 'BTC', quantity: '1', pounds: '60000' },
      { day: 120, coin: 'BTC', quantity: '-1', pounds: '55000' },
      // Gross proceeds 70,000; the £70 fee an incidental cost.
      { day: 160, coin: 'BTC', quantity: '-1', pounds: '70000', costs: '70' },
    ]);
    expect(code).toEqual(hand);
  });
});
