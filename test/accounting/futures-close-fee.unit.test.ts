import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';

import { UkMatcher } from '../../src/accounting/gains/uk-matching.ts';
import { LotEngine } from '../../src/accounting/lots/lot-engine.ts';
import type { LedgerEntry } from '../../src/booking/ledger-entry.ts';
import { entryOn, lots, price, ukMatches, walkEvents } from './walk-fixtures.ts';

/**
 * Issue 42 item 1, on the demo's shape: `futures:1793634909265001`, a CLOSE_SHORT with a loss of
 * 4,714.4665 USDT and a fee of 107.609718 USDT (src/booking/futures-entries.ts: a loss is one entry,
 * the amount sent and its fee in the fee column). The fee is part of the futures result (the futures
 * rows' `fees`, EStG §20 (4) Satz 5 for a Termingeschäft), so it is no incidental cost of the margin
 * coin's disposal: all the USDT paid out, the fee's too, is disposed of at market value (CRYPTO22150:
 * tokens paying a fee are disposed of at market value; TCGA92 s52(1): no deduction twice), as an
 * open's fee and a profitable close's `:fee` row already were. Expected figures are worked from that
 * rule here, not read from the code.
 */
const LOSS = new Decimal('4714.4665');
const FEE = new Decimal('107.609718');
const RATE = new Decimal('0.75');
const BOUGHT = new Decimal('10000');
const COST = new Decimal('7000');

const buy = entryOn(0, 'spot:buy', 'Buy', 'trade', [COST.toFixed(), 'GBP'], [BOUGHT.toFixed(), 'USDT'], {
  wallet: 'spot',
});
const close = (day: number, id: string, amount: Decimal, fee: Decimal): LedgerEntry[] =>
  amount.isNegative()
    ? [
        entryOn(day, id, 'CLOSE_SHORT BTCUSDT realized', 'futures-loss', [amount.neg().toFixed(), 'USDT'], null, {
          wallet: 'futures',
          feeAmount: fee,
          feeCoin: 'USDT',
        }),
      ]
    : [
        entryOn(day, id, 'CLOSE_LONG BTCUSDT realized', 'futures-gain', null, [amount.toFixed(), 'USDT'], {
          wallet: 'futures',
        }),
        entryOn(day, `${id}:fee`, 'CLOSE_LONG BTCUSDT realized fee', 'fee', [fee.toFixed(), 'USDT'], null, {
          wallet: 'futures',
        }),
      ];

describe('a loss-making futures close’s fee: disposed of at market value with the loss, never for nothing', () => {
  it('fifo (and de): the 4,822.076218 USDT paid out are one disposal at their market value, against their cost', async () => {
    const rows = lots(
      await walkEvents(
        [buy, ...close(10, 'futures:1793634909265001', LOSS.neg(), FEE)],
        [price(10, 'USDT', RATE.toFixed())],
        new LotEngine('fifo', 'GBP'),
      ),
    );
    const paid = LOSS.plus(FEE);
    expect(rows.map((m) => [m.quantity.toFixed(), m.proceeds?.toFixed(), m.costBasis?.toFixed()])).toEqual([
      [paid.toFixed(), paid.times(RATE).toFixed(), paid.times(COST).div(BOUGHT).toFixed()],
    ]);
    // No part of it goes for less than the day's rate: the fee's coins are not a loss at their cost.
    for (const m of rows) expect(m.proceeds!.div(m.quantity).toFixed()).toBe(RATE.toFixed());
  });

  it('uk: the day’s disposal of USDT at market value, the pool’s average cost (TCGA92 s104; CRYPTO22150)', async () => {
    const parts = ukMatches(
      await walkEvents(
        [buy, ...close(10, 'futures:x', LOSS.neg(), FEE)],
        [price(10, 'USDT', RATE.toFixed())],
        new UkMatcher('GBP'),
      ),
    );
    const paid = LOSS.plus(FEE);
    expect(parts.map((m) => [m.rule, m.quantity.toFixed(), m.proceeds?.toFixed(), m.cost?.toFixed()])).toEqual([
      ['s104', paid.toFixed(), paid.times(RATE).toFixed(), COST.times(paid).div(BOUGHT).toFixed()],
    ]);
  });

  it('a loss and a profit with the same fee treat the fee alike: its coins disposed of at market value', async () => {
    const points = [price(10, 'USDT', RATE.toFixed()), price(11, 'USDT', RATE.toFixed())];
    const loss = lots(
      await walkEvents([buy, ...close(10, 'futures:l', new Decimal(-500), FEE)], points, new LotEngine('fifo', 'GBP')),
    );
    const profit = lots(
      await walkEvents([buy, ...close(10, 'futures:p', new Decimal(500), FEE)], points, new LotEngine('fifo', 'GBP')),
    );
    // The profit's fee row: FEE disposed of at FEE x RATE; the loss: 500 + FEE at (500 + FEE) x RATE.
    expect(profit.map((m) => m.proceeds!.toFixed())).toEqual([FEE.times(RATE).toFixed()]);
    expect(loss.map((m) => m.proceeds!.toFixed())).toEqual([FEE.plus(500).times(RATE).toFixed()]);
    // So the fee's share of proceeds is the same in both: no nil-proceeds disposal of the fee.
    expect(loss[0]!.proceeds!.minus(new Decimal(500).times(RATE)).toFixed()).toBe(profit[0]!.proceeds!.toFixed());
  });

  it('a spot disposal at market value keeps its fee an incidental cost of that disposal (TCGA92 s38(1)(c))', async () => {
    // `Consumption` (coins spent on a purchase) with a fee: the fee is a cost of that disposal, so it
    // brings no proceeds of its own: proceeds = the amount's market value, the cost the coins'.
    const spent = entryOn(10, 'spot:c', 'Consumption', 'expense', ['100', 'USDT'], null, {
      wallet: 'spot',
      feeAmount: new Decimal('1'),
      feeCoin: 'USDT',
    });
    const rows = lots(
      await walkEvents([buy, spent], [price(10, 'USDT', RATE.toFixed())], new LotEngine('fifo', 'GBP')),
    );
    expect(rows.map((m) => [m.quantity.toFixed(), m.proceeds?.toFixed()])).toEqual([
      ['101', new Decimal(100).times(RATE).toFixed()],
    ]);
  });
});
