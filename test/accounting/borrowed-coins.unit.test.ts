import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';

import { taxableSale } from '../../src/accounting/gains/de-private-sales.ts';
import { UkMatcher } from '../../src/accounting/gains/uk-matching.ts';
import { LotEngine } from '../../src/accounting/lots/lot-engine.ts';
import type { LotMethod } from '../../src/accounting/lots/lot-method.ts';
import type { LedgerEntry } from '../../src/booking/ledger-entry.ts';
import { DAY, entryOn, lots, price, t0, ukMatches, walkEvents } from './walk-fixtures.ts';

/**
 * Issue 42 item 2's worked example: a pool of 1 BTC bought for 10,000; 1 BTC borrowed on margin when
 * BTC is at 60,000; 1 BTC repaid. The reading taken (docs/reports.md, "Margin and P2P"): the borrower
 * may deal with the borrowed coins as its own, so it acquires them (HMRC CRYPTO61620: beneficial
 * ownership passes; BGB §607(1): a Sachdarlehen passes Eigentum), at market value (TCGA92 s17(1));
 * repaying is a disposal (CRYPTO22100; EStG §23 (1) Satz 1 Nr. 2) at market value, the debt released
 * its consideration. Each expected figure below is worked from that rule and the method's own
 * identification rule, not read from the code.
 */
const BUY = new Decimal(10_000);
const AT_BORROW = new Decimal(60_000);

const margin = (day: number, id: string, type: string, sent: [string, string] | null, got: [string, string] | null) =>
  entryOn(day, `margin:${id}`, `${type} crossed`, 'margin', sent, got, { wallet: 'margin' });

function example(sellAt: Decimal): LedgerEntry[] {
  return [
    entryOn(0, 'spot:buy', 'Buy', 'trade', [BUY.toFixed(), 'GBP'], ['1', 'BTC'], { wallet: 'spot' }),
    margin(40, 'b', 'borrow', null, ['1', 'BTC']),
    margin(80, 'r', 'repay', ['1', 'BTC'], null),
    entryOn(120, 'spot:sell', 'Sell', 'trade', ['1', 'BTC'], [sellAt.toFixed(), 'GBP'], { wallet: 'spot' }),
  ];
}
const prices = (atRepay: Decimal) => [price(40, 'BTC', AT_BORROW.toFixed()), price(80, 'BTC', atRepay.toFixed())];
const SELL = new Decimal(70_000);
const sum = (values: Decimal[]) => values.reduce((a, b) => a.plus(b), new Decimal(0));

describe('borrowed coins (margin borrow / repay): acquired and disposed of at market value, never a cost invented', () => {
  for (const atRepay of [new Decimal(60_000), new Decimal(50_000)]) {
    it(`uk: the borrowed BTC joins the s104 pool at £60,000; repaying at £${atRepay.toFixed()} is a disposal matched with the pool (TCGA92 s104; CRYPTO61620, CRYPTO22100)`, async () => {
      const uk = new UkMatcher('GBP');
      const parts = ukMatches(await walkEvents(example(SELL), prices(atRepay), uk));
      // Day 80: no same-day or 30-day acquisition; the pool holds 2 BTC for 10,000 + 60,000.
      const poolCost = BUY.plus(AT_BORROW);
      const repayCost = poolCost.div(2);
      const repay = parts.filter((m) => m.disposalRecordIds === 'margin:r');
      expect(repay.map((m) => [m.rule, m.quantity.toFixed(), m.proceeds?.toFixed(), m.cost?.toFixed()])).toEqual([
        ['s104', '1', atRepay.toFixed(), repayCost.toFixed()],
      ]);
      // Day 120: the one BTC left, at what the pool kept.
      const sale = parts.filter((m) => m.disposalRecordIds === 'spot:sell');
      expect(sale.map((m) => [m.rule, m.proceeds?.toFixed(), m.cost?.toFixed()])).toEqual([
        ['s104', SELL.toFixed(), poolCost.minus(repayCost).toFixed()],
      ]);
      // Over the loan's life: the owner's own gain (70,000 - 10,000) less what the borrowed coin lost
      // while held (60,000 -> the repayment's value): no cost invented, none lost.
      const total = sum(parts.map((m) => m.proceeds!.minus(m.cost!)));
      expect(total.toFixed()).toBe(SELL.minus(BUY).minus(AT_BORROW.minus(atRepay)).toFixed());
    });
  }

  const lotCases: { method: LotMethod; repayLot: 'buy' | 'borrow' | 'average' }[] = [
    // fifo (and de, BMF 10.5.2022 Rz. 59): the repayment takes the oldest unit, the owner's own.
    { method: 'fifo', repayLot: 'buy' },
    // lifo and hifo: the newest / dearest unit, the borrowed one.
    { method: 'lifo', repayLot: 'borrow' },
    { method: 'hifo', repayLot: 'borrow' },
    // average: the pool's average, as the UK pool.
    { method: 'average', repayLot: 'average' },
  ];
  for (const { method, repayLot } of lotCases) {
    it(`${method}: the repayment is a disposal at market value of the lot the method names (${repayLot})`, async () => {
      const atRepay = new Decimal(60_000);
      const engine = new LotEngine(method, 'GBP');
      const rows = lots(await walkEvents(example(SELL), prices(atRepay), engine));
      const cost = { buy: BUY, borrow: AT_BORROW, average: BUY.plus(AT_BORROW).div(2) }[repayLot];
      const repay = rows.filter((m) => m.disposalRecordIds === 'margin:r');
      expect(repay.map((m) => [m.proceeds?.toFixed(), m.costBasis?.toFixed()])).toEqual([
        [atRepay.toFixed(), cost.toFixed()],
      ]);
      const sale = rows.filter((m) => m.disposalRecordIds === 'spot:sell');
      expect(sale.map((m) => [m.proceeds?.toFixed(), m.costBasis?.toFixed()])).toEqual([
        [SELL.toFixed(), BUY.plus(AT_BORROW).minus(cost).toFixed()],
      ]);
      expect(sum(rows.map((m) => m.proceeds!.minus(m.costBasis!))).toFixed()).toBe(SELL.minus(BUY).toFixed());
      expect(engine.held('BTC').toFixed()).toBe('0');
    });
  }

  it('de: FIFO within the account (BMF 10.5.2022 Rz. 59): the repayment is a Veräußerung of the owner’s own unit, taxable within the year (EStG §23 (1) Satz 1 Nr. 2); the borrowed unit, kept, is the one sold later', async () => {
    const atRepay = new Decimal(60_000);
    // The currency does not change the rule: the walk's figures in pounds stand for euros here.
    const rows = lots(await walkEvents(example(SELL), prices(atRepay), new LotEngine('fifo', 'GBP')));
    const repay = rows.find((m) => m.disposalRecordIds === 'margin:r')!;
    expect(repay.acquiredAtMs).toBe(t0);
    expect(repay.proceeds!.minus(repay.costBasis!).toFixed()).toBe(atRepay.minus(BUY).toFixed());
    expect(taxableSale(repay.acquiredAtMs!, repay.disposedAtMs)).toBe(true);
    const sale = rows.find((m) => m.disposalRecordIds === 'spot:sell')!;
    expect(sale.acquiredAtMs).toBe(t0 + 40 * DAY);
    expect(sale.costBasis!.toFixed()).toBe(AT_BORROW.toFixed());
  });

  it('repaying more than is held is a disposal beyond the holdings: its proceeds at market value, no cost, flagged', async () => {
    const rows = lots(
      await walkEvents(
        [margin(0, 'r', 'repay', ['5', 'USDT'], null)],
        [price(0, 'USDT', '0.8')],
        new LotEngine('fifo', 'GBP'),
      ),
    );
    expect(rows.map((m) => [m.quantity.toFixed(), m.proceeds?.toFixed(), m.beyondHoldings])).toEqual([
      ['5', new Decimal('5').times('0.8').toFixed(), true],
    ]);
  });
});
