import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';

import { UkMatcher } from '../../src/accounting/gains/uk-matching.ts';
import { deGainRow } from '../../src/export/reports/de-gains.ts';
import { entryOn, fifo, lots, price, ukMatches, walkEvents } from './walk-fixtures.ts';

/**
 * Issue 42 item 6: the filing figures as the forms ask. SA108 asks for "disposal proceeds" gross and
 * "allowable costs" including the incidental costs of disposal (TCGA92 s38(1)(c)); Anlage SO for the
 * Veräußerungspreis, the Anschaffungskosten and the Werbungskosten (EStG §23 (3) Satz 1). The gain
 * is the same either way: only proceeds and costs each carry the fee.
 */
const BUY = entryOn(0, 'spot:b', 'Buy', 'trade', ['1500', 'GBP'], ['1', 'ETH'], { wallet: 'spot' });
const BUY_MORE = entryOn(0, 'spot:b2', 'Buy', 'trade', ['15', 'GBP'], ['0.01', 'ETH'], { wallet: 'spot' });

describe('incidental costs of disposal: proceeds gross, the fee in the costs', () => {
  it('a sale for pounds with its fee taken in pounds: SA108 proceeds 2,000 (not 1,990), allowable cost 1,500 + 10', async () => {
    const sell = entryOn(5, 'spot:s', 'Sell', 'trade', ['1', 'ETH'], ['2000', 'GBP'], {
      wallet: 'spot',
      feeAmount: new Decimal('10'),
      feeCoin: 'GBP',
    });
    const parts = ukMatches(await walkEvents([BUY, sell], [], new UkMatcher('GBP')));
    // The exchange credits 2,000 - 10 = 1,990; the fee is an incidental cost of the disposal.
    expect(parts.map((m) => [m.proceeds?.toFixed(), m.cost?.toFixed(), m.incidentalCost?.toFixed()])).toEqual([
      ['2000', '1510', '10'],
    ]);
    const rows = lots(await walkEvents([BUY, sell], [], fifo()));
    // The plain lot methods keep their net proceeds; the part carries the fee beside them.
    expect(rows.map((m) => [m.proceeds?.toFixed(), m.incidentalCost?.toFixed()])).toEqual([['1990', '10']]);
    // Under de: Veräußerungspreis 2,000, Anschaffungskosten 1,500, Werbungskosten 10, gain 490.
    const de = deGainRow(rows[0]!, 'EUR', 'UTC');
    // Columns proceeds, cost_basis, selling_costs, gain (de-gains.ts).
    expect(de.cells.slice(4, 8)).toEqual(['2000', '1500', '10', '490']);
  });

  it('a fee paid in the token sold: its value at the sale’s own price is in the proceeds and in the costs (CRYPTO22150)', async () => {
    const sell = entryOn(5, 'spot:s', 'Sell', 'trade', ['1', 'ETH'], ['2000', 'GBP'], {
      wallet: 'spot',
      feeAmount: new Decimal('0.01'),
      feeCoin: 'ETH',
    });
    const parts = ukMatches(await walkEvents([BUY, BUY_MORE, sell], [], new UkMatcher('GBP')));
    // 1.01 ETH leave the pool (cost 1,515); the 0.01 paid for the fee is worth 2,000 x 0.01 / 1 = 20.
    const fee = new Decimal(2000).times('0.01').div(1);
    expect(parts.map((m) => [m.quantity.toFixed(), m.proceeds?.toFixed(), m.cost?.toFixed()])).toEqual([
      ['1.01', new Decimal(2000).plus(fee).toFixed(), new Decimal(1515).plus(fee).toFixed()],
    ]);
  });

  it('a fee in a third coin (BGB) charged to a sale for pounds: its market value is an incidental cost, proceeds gross', async () => {
    const sell = entryOn(5, 'spot:s', 'Sell', 'trade', ['1', 'ETH'], ['2000', 'GBP'], {
      wallet: 'spot',
      thirdFee: { amount: new Decimal('1'), coin: 'BGB', recordIds: 'spot:f' },
    });
    const fee = entryOn(5, 'spot:f', 'Transaction fee deduct', 'fee', ['1', 'BGB'], null, { attached: true });
    const bgb = entryOn(0, 'spot:bgb', 'Buy', 'trade', ['12', 'GBP'], ['1', 'BGB'], { wallet: 'spot' });
    const parts = ukMatches(await walkEvents([BUY, bgb, sell, fee], [price(5, 'BGB', '15')], new UkMatcher('GBP')));
    expect(parts.map((m) => [m.coin, m.proceeds?.toFixed(), m.cost?.toFixed()])).toEqual([
      // The BGB itself disposed of at market value, against its cost.
      ['BGB', '15', '12'],
      // The ETH: 2,000 gross, 1,500 + the BGB's 15.
      ['ETH', '2000', '1515'],
    ]);
  });
});
