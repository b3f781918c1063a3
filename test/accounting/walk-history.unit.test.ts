import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';

import type { GainsEvent } from '../../src/accounting/gains/gains-event.ts';
import { walkHistory } from '../../src/accounting/gains/walk-history.ts';
import { LotEngine } from '../../src/accounting/lots/lot-engine.ts';
import type { LotMethod } from '../../src/accounting/lots/lot-method.ts';
import { memoryPriceBook } from '../../src/accounting/prices/memory-price-book.ts';
import type { PricePointInput } from '../../src/accounting/prices/price-point.ts';
import type { LedgerEntry } from '../../src/booking/ledger-entry.ts';

const DAY = 86_400_000;
const t0 = Date.UTC(2026, 0, 1);

type Side = [string, string] | null;

function entry(
  day: number,
  id: string,
  category: string,
  sent: Side,
  received: Side,
  fee: Side = null,
  flag: string | null = null,
): LedgerEntry {
  return {
    atMs: t0 + day * DAY,
    sentAmount: sent ? new Decimal(sent[0]) : null,
    sentCoin: sent ? sent[1] : null,
    receivedAmount: received ? new Decimal(received[0]) : null,
    receivedCoin: received ? received[1] : null,
    feeAmount: fee ? new Decimal(fee[0]) : null,
    feeCoin: fee ? fee[1] : null,
    category,
    spotTypes: category === 'income' ? 'Interest' : category,
    recordIds: id,
    flag,
  };
}

async function* from<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield await Promise.resolve(item);
}

async function walk(entries: LedgerEntry[], points: PricePointInput[] = [], method: LotMethod = 'fifo') {
  const book = memoryPriceBook('USDT', points);
  const events: GainsEvent[] = [];
  for await (const event of walkHistory(from(entries), book, new LotEngine(method, 'USDT'))) events.push(event);
  return events.map((event) =>
    event.kind === 'disposal'
      ? [
          'disposal',
          event.match.coin,
          event.match.quantity.toFixed(),
          event.match.proceeds?.toFixed() ?? '-',
          event.match.costBasis?.toFixed() ?? '-',
          event.match.lotRecordIds,
        ].join(' ')
      : ['income', event.coin, event.quantity.toFixed(), event.value?.toFixed() ?? '-', event.priceSource ?? '-'].join(
          ' ',
        ),
  );
}

const price = (day: number, base: string, value: string): PricePointInput => ({
  at: new Date(t0 + day * DAY),
  base,
  quote: 'USDT',
  price: value,
  source: 'daily',
});

describe('walking the ledger through the lots', () => {
  it('takes a fee in the received coin off the lot and a fee in the received currency off the proceeds', async () => {
    const events = await walk([
      // 1000 USDT for 0.02 BTC, 0.00002 BTC of it kept as the fee: a lot of 0.01998 costing 1000.
      entry(0, 'buy', 'trade', ['1000', 'USDT'], ['0.02', 'BTC'], ['0.00002', 'BTC']),
      // All of it for 1200 USDT, 1.2 USDT fee: proceeds 1198.8.
      entry(30, 'sell', 'trade', ['0.01998', 'BTC'], ['1200', 'USDT'], ['1.2', 'USDT']),
    ]);
    expect(events).toEqual(['disposal BTC 0.01998 1198.8 1000 buy']);
  });

  it('disposes of a fee in the sent coin with the trade, for no extra proceeds', async () => {
    const events = await walk([
      entry(0, 'buy', 'trade', ['1000', 'USDT'], ['1', 'ETH']),
      // 0.5 ETH sold plus 0.001 ETH fee: 0.501 leaves for 1500, costing 501.
      entry(1, 'sell', 'trade', ['0.5', 'ETH'], ['1500', 'USDT'], ['0.001', 'ETH']),
    ]);
    expect(events).toEqual(['disposal ETH 0.501 1500 501 buy']);
  });

  it('adds a fee in the sent currency to the cost of what was bought', async () => {
    const events = await walk([
      entry(0, 'buy', 'trade', ['100', 'USDT'], ['1', 'SOL'], ['0.1', 'USDT']),
      entry(1, 'sell', 'trade', ['1', 'SOL'], ['150', 'USDT']),
    ]);
    expect(events).toEqual(['disposal SOL 1 150 100.1 buy']);
  });

  it('books a fee paying for no trade as a disposal of its coin at market value (HMRC CRYPTO22150)', async () => {
    const events = await walk(
      [entry(0, 'bgb', 'trade', ['10', 'USDT'], ['4', 'BGB']), entry(1, 'fee', 'fee', ['0.25', 'BGB'], null)],
      [price(1, 'BGB', '3')],
    );
    // 4 BGB cost 10, so the 0.25 spent cost 0.625 and were worth 0.75: a gain of 0.125, not a loss of 0.625.
    expect(events).toEqual(['disposal BGB 0.25 0.75 0.625 bgb']);
  });

  it('values a trade between two coins at the received coin, else at the sent coin', async () => {
    const events = await walk(
      [
        entry(0, 'btc', 'trade', ['60000', 'USDT'], ['1', 'BTC']),
        // 0.5 BTC for 10 ETH: ETH is priced (3100): proceeds 31000, cost 30000; the ETH lot costs 31000.
        entry(1, 'swap', 'trade', ['0.5', 'BTC'], ['10', 'ETH']),
        // 0.5 BTC for 100 DOGEX: DOGEX has no price, BTC has (70000): 35000.
        entry(2, 'swap2', 'trade', ['0.5', 'BTC'], ['100', 'DOGEX']),
        entry(3, 'eth', 'trade', ['10', 'ETH'], ['32000', 'USDT']),
      ],
      [price(1, 'ETH', '3100'), price(2, 'BTC', '70000')],
    );
    expect(events).toEqual([
      'disposal BTC 0.5 31000 30000 btc',
      'disposal BTC 0.5 35000 30000 btc',
      'disposal ETH 10 32000 31000 swap',
    ]);
  });

  it('values income at receipt and makes it a lot at that value', async () => {
    const events = await walk(
      [entry(0, 'interest', 'income', null, ['0.5', 'SOL']), entry(5, 'sell', 'trade', ['0.5', 'SOL'], ['60', 'USDT'])],
      [price(0, 'SOL', '100')],
    );
    expect(events).toEqual(['income SOL 0.5 50 import:daily', 'disposal SOL 0.5 60 50 interest']);
  });

  it('leaves an unpriced coin unpriced: its income has no value and its lot no cost', async () => {
    const events = await walk([
      entry(0, 'drop', 'income', null, ['7', 'FOO']),
      entry(1, 'sell', 'trade', ['7', 'FOO'], ['14', 'USDT']),
    ]);
    expect(events).toEqual(['income FOO 7 - -', 'disposal FOO 7 14 - drop']);
  });

  it('keeps lots through locks and transfers, and lets a withdrawal take them away unrealized', async () => {
    const events = await walk(
      [
        entry(0, 'a', 'trade', ['100', 'USDT'], ['1', 'BTC']),
        entry(1, 'b', 'trade', ['300', 'USDT'], ['1', 'BTC']),
        entry(2, 'lock', 'lock', ['1', 'BTC'], null),
        entry(3, 'unlock', 'lock', null, ['1', 'BTC']),
        entry(4, 'out', 'withdrawal', ['1', 'BTC'], null, ['0.01', 'BTC']),
        entry(5, 'sell', 'trade', ['0.99', 'BTC'], ['400', 'USDT']),
      ],
      [price(4, 'BTC', '350')],
    );
    // The withdrawal's fee pays for no trade: a disposal at market value (0.01 x 350) after the
    // withdrawn coin took lot a (HMRC CRYPTO22150).
    expect(events).toEqual(['disposal BTC 0.01 3.5 3 b', 'disposal BTC 0.99 400 297 b']);
  });

  it('books nothing for income of amount 0', async () => {
    expect(await walk([entry(0, 'zero', 'income', null, ['0', 'SOL'])], [price(0, 'SOL', '100')])).toEqual([]);
  });

  it('books a futures result in the valuation currency as nothing (the currency has no lots)', async () => {
    expect(await walk([entry(0, 'position:1', 'futures', null, ['5', 'USDT'])])).toEqual([]);
  });
});
