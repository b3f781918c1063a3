import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';

import { type AwayLoss, AwayLosses } from '../../src/accounting/gains/away-losses.ts';
import type { GainsEvent } from '../../src/accounting/gains/gains-event.ts';
import { SuppliedCosts } from '../../src/accounting/gains/supplied-costs.ts';
import { type UkMatch, UkMatcher } from '../../src/accounting/gains/uk-matching.ts';
import { type LotSink, walkHistory } from '../../src/accounting/gains/walk-history.ts';
import type { LotMatch } from '../../src/accounting/lots/lot-engine.ts';
import { memoryPriceBook } from '../../src/accounting/prices/memory-price-book.ts';
import type { LedgerEntry } from '../../src/booking/ledger-entry.ts';
import { DAY, entryOn, fifo, price, t0 } from './walk-fixtures.ts';

/*
 * Issue 42 item 4: coins moved to a strategy that never come back. The accountant decides `lost`
 * at a date (a supplied, logged figure); the walk then disposes of what is still away for nothing
 * at that instant: TCGA92 s24(1), "the occasion of the entire loss, destruction, dissipation or
 * extinction of an asset shall ... constitute a disposal of the asset"; the loss is the cost of the
 * lots (or the pool's share) the coins carry. Worked example, derived here from that rule:
 *   day 0   10 SOL deposited, cost supplied £1,000 (£100 each)
 *   day 1   10 SOL moved to a strategy (an own move: the lots stay)
 *   day 150 the accountant decides 6 SOL lost: disposal of 6 SOL for £0, cost 6 x £100 = £600, loss £600
 *   day 160 4 SOL come back (what is still away: no new lot, no unknown cost)
 *   day 170 4 SOL sold at £120: proceeds £480, cost £400.
 */
const deposit = entryOn(0, 'spot:d1', 'Deposit', 'deposit', null, ['10', 'SOL']);
const away = entryOn(1, 'spot:m1', 'Withdraw to strategy account', 'internal-transfer', ['10', 'SOL'], null);
const back = (quantity: string) =>
  entryOn(160, 'spot:m2', 'Deposit from strategy account', 'internal-transfer', null, [quantity, 'SOL']);
const sale = entryOn(170, 'spot:s1', 'Sell', 'market', ['4', 'SOL'], null);
const LOSS: AwayLoss = {
  recordId: 'm1',
  coin: 'SOL',
  quantity: new Decimal(6),
  lostAtMs: t0 + 150 * DAY,
  source: 'accountant',
};
const SUPPLIED = [
  {
    coin: 'SOL',
    quantity: new Decimal(10),
    acquiredAtMs: t0,
    cost: new Decimal(1000),
    currency: 'GBP',
    source: 'bank',
  },
];

async function walk<M>(entries: LedgerEntry[], sink: LotSink<M>, losses: AwayLoss[]): Promise<GainsEvent<M>[]> {
  const book = memoryPriceBook('GBP', [price(0, 'SOL', '100'), price(150, 'SOL', '110'), price(170, 'SOL', '120')], {
    toleranceMs: 400 * DAY,
  });
  async function* from() {
    for (const entry of entries) yield await Promise.resolve(entry);
  }
  const out: GainsEvent<M>[] = [];
  const options = { supplied: new SuppliedCosts(SUPPLIED, 'GBP'), losses: new AwayLosses(losses) };
  for await (const event of walkHistory(from(), book, sink, options)) out.push(event);
  return out;
}

const matches = <M>(events: GainsEvent<M>[]): M[] => events.flatMap((e) => (e.kind === 'disposal' ? [e.match] : []));

describe('coins away decided lost (issue 42 item 4)', () => {
  it('disposes of them for nothing at the decision, at their lots’ cost; what comes back is no new lot', async () => {
    const got = matches<LotMatch>(await walk([deposit, away, back('4'), sale], fifo(), [LOSS]));
    expect(
      got.map((m) => [m.disposedAtMs, m.quantity.toFixed(), m.proceeds?.toFixed(), m.costBasis?.toFixed()]),
    ).toEqual([
      [t0 + 150 * DAY, '6', '0', '600'],
      [t0 + 170 * DAY, '4', '480', '400'],
    ]);
    expect(got[0]!.disposalRecordIds).toBe('spot:m1<accountant');
    expect(got.every((m) => m.unknownCost !== true)).toBe(true);
  });

  it('under HMRC’s matching, the loss takes its share of the section 104 pool (6 x £100)', async () => {
    const got = matches<UkMatch>(await walk([deposit, away, back('4'), sale], new UkMatcher('GBP'), [LOSS]));
    expect(got.map((m) => [m.disposedAtMs, m.quantity.toFixed(), m.proceeds?.toFixed(), m.cost?.toFixed()])).toEqual([
      [t0 + 150 * DAY, '6', '0', '600'],
      [t0 + 170 * DAY, '4', '480', '400'],
    ]);
  });

  it('loses only what is still away; coins coming back after the loss are of unknown cost', async () => {
    const early = entryOn(100, 'spot:m3', 'Deposit from strategy account', 'internal-transfer', null, ['7', 'SOL']);
    const late = entryOn(160, 'spot:m2', 'Deposit from strategy account', 'internal-transfer', null, ['2', 'SOL']);
    const sellAll = entryOn(170, 'spot:s1', 'Sell', 'market', ['9', 'SOL'], null);
    const got = matches<LotMatch>(await walk([deposit, away, early, late, sellAll], fifo(), [LOSS]));
    // 7 came back on day 100: 3 were away when 6 were decided lost, so 3 are lost (cost £300).
    expect(got[0]!.quantity.toFixed()).toBe('3');
    expect(got[0]!.costBasis?.toFixed()).toBe('300');
    // The 2 coming back on day 160 were lost: coins from outside, of unknown cost.
    const unknown = got.filter((m) => m.unknownCost === true);
    expect(unknown.reduce((sum, m) => sum.plus(m.quantity), new Decimal(0)).toFixed()).toBe('2');
  });

  it('without a decision the coins stay in the lots as held: no disposal until the sale', async () => {
    const got = matches<LotMatch>(await walk([deposit, away, back('4'), sale], fifo(), []));
    expect(got.map((m) => m.quantity.toFixed())).toEqual(['4']);
  });
});
