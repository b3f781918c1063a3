import type { Decimal } from 'decimal.js';

import type { LedgerEntry } from '../../booking/ledger-entry.ts';
import { minus, money, plus, ZERO } from '../lots/lot-arithmetic.ts';
import type { LotMatch } from '../lots/lot-engine.ts';
import type { PriceBook, Valuation } from '../prices/price-book.ts';
import type { GainsEvent } from './gains-event.ts';

/** Categories that move coins without a change of owner (locks, earn, the user's own accounts). */
const KEEPS_LOTS: ReadonlySet<string> = new Set(['internal-transfer', 'lock', 'earn']);
/**
 * What the walk hands its acquisitions and disposals to: the lot engine (matches at once), or the
 * UK matcher, which holds a day's disposal back until the 30 days after it are known and hands its
 * matches out when time has moved on (`advance`, before each entry) or the history ends (`finish`).
 */
export interface LotSink<M> {
  acquire(coin: string, quantity: Decimal, cost: Decimal | null, atMs: number, recordIds: string): void;
  dispose(coin: string, quantity: Decimal, proceeds: Decimal | null, atMs: number, recordIds: string): readonly M[];
  /** Coins leave without a disposal (a withdrawal). */
  remove(coin: string, quantity: Decimal, atMs: number): unknown;
  advance?(atMs: number): readonly M[];
  finish?(): readonly M[];
}

/** The futures results: realized gains here are about spot coins only. */
const NOT_SPOT = 'futures';

/**
 * Walks the ledger in time order through the lot engine and yields every disposal match and every
 * income event. Holds nothing but the engine's open lots and the price book's latest points, so
 * memory does not grow with the number of entries. The rules (docs/reports.md, "realized-gains"):
 *
 * - A paired trade disposes of what was sent and acquires what was received, both at one value V:
 *   what the valuation-currency side was worth when there is one (the currency sent, fee included;
 *   or the currency received, net of its fee), else the received coin's market value, else the sent
 *   coin's; neither priced: unpriced. A fee in the received coin reduces the quantity acquired (the
 *   lot costs V all the same); a fee in the sent coin is disposed of with the trade (its lots' cost is
 *   in the cost basis, it brings no proceeds).
 * - A fee paid on its own (category `fee`, e.g. BGB `Transaction fee deduct`, the fee of a deposit or
 *   of a withdrawal, interest paid) is a disposal for nothing: proceeds 0, so its cost is realized as
 *   a loss. Over time that is the same total as adding the fee's cost to the trade it belongs to.
 * - Income (category `income`, coming in) is valued at receipt and becomes a lot at that value.
 * - Locks, earn and the user's own accounts keep the lots (no event). A withdrawal takes its lots
 *   away with it without realizing anything (coins sent out are presumed still the owner's).
 * - Anything else coming in (deposits, rebates, refunds, loans, adjustments, an unpaired trade leg)
 *   is a lot at its market value at receipt; anything else going out is a disposal at market value
 *   (its own fee reducing the proceeds).
 */
export async function* walkHistory<M = LotMatch>(
  entries: AsyncIterable<LedgerEntry>,
  book: PriceBook,
  engine: LotSink<M>,
): AsyncGenerator<GainsEvent<M>> {
  // Market values enter the lots and proceeds at MONEY_PLACES (lot-arithmetic.ts).
  const valueOf = async (coin: string, quantity: Decimal, atMs: number): Promise<Valuation | null> => {
    if (quantity.isZero()) return null;
    const valuation = await book.value(coin, quantity, new Date(atMs));
    return valuation && { ...valuation, value: money(valuation.value) };
  };
  for await (const entry of entries) {
    if (entry.category === NOT_SPOT) continue;
    for (const match of engine.advance?.(entry.atMs) ?? []) yield { kind: 'disposal', match };
    if (entry.category === 'trade' && entry.flag === null && entry.sentCoin !== null && entry.receivedCoin !== null) {
      yield* trade(entry, entry.sentCoin, entry.receivedCoin, engine, valueOf, book.currency);
    } else {
      yield* single(entry, engine, valueOf);
    }
  }
  for (const match of engine.finish?.() ?? []) yield { kind: 'disposal', match };
}

type ValueOf = (coin: string, quantity: Decimal, atMs: number) => Promise<Valuation | null>;

async function* trade<M>(
  entry: LedgerEntry,
  sentCoin: string,
  receivedCoin: string,
  engine: LotSink<M>,
  valueOf: ValueOf,
  currency: string,
): AsyncGenerator<GainsEvent<M>> {
  const fee = entry.feeAmount ?? ZERO;
  const sent = plus(entry.sentAmount ?? ZERO, entry.feeCoin === sentCoin ? fee : ZERO);
  const received = minus(entry.receivedAmount ?? ZERO, entry.feeCoin === receivedCoin ? fee : ZERO);
  let value: Decimal | null;
  if (sentCoin === currency) value = money(sent);
  else if (receivedCoin === currency) value = money(received);
  else
    value =
      (await valueOf(receivedCoin, received, entry.atMs))?.value ??
      (await valueOf(sentCoin, sent, entry.atMs))?.value ??
      null;
  for (const match of engine.dispose(sentCoin, sent, value, entry.atMs, entry.recordIds)) {
    yield { kind: 'disposal', match };
  }
  if (received.gt(ZERO)) engine.acquire(receivedCoin, received, value, entry.atMs, entry.recordIds);
}

async function* single<M>(entry: LedgerEntry, engine: LotSink<M>, valueOf: ValueOf): AsyncGenerator<GainsEvent<M>> {
  const { category, atMs, recordIds } = entry;
  const keeps = KEEPS_LOTS.has(category);
  const incoming = entry.receivedCoin !== null && entry.receivedAmount !== null ? entry.receivedAmount : null;
  // A record of amount 0 (a fee-only record's other half) brings nothing: no income, no lot.
  if (incoming !== null && entry.receivedCoin !== null && !keeps && !incoming.isZero()) {
    const coin = entry.receivedCoin;
    const valuation = await valueOf(coin, incoming, atMs);
    if (category === 'income') {
      yield {
        kind: 'income',
        atMs,
        coin,
        quantity: incoming,
        value: valuation?.value ?? null,
        priceSource: valuation?.source ?? null,
        spotTaxType: entry.spotTypes,
        recordId: recordIds,
      };
    }
    engine.acquire(coin, incoming, valuation?.value ?? null, atMs, recordIds);
  }
  if (entry.sentCoin === null || entry.sentAmount === null) return;
  const coin = entry.sentCoin;
  const fee = entry.feeCoin === coin && entry.feeAmount !== null ? entry.feeAmount : ZERO;
  const feeOnly = recordIds.endsWith(':fee') || category === 'fee' || category === 'income';
  const dispose = function* (quantity: Decimal, proceeds: Decimal | null): Generator<GainsEvent<M>> {
    for (const match of engine.dispose(coin, quantity, proceeds, atMs, recordIds)) yield { kind: 'disposal', match };
  };
  if (feeOnly) {
    yield* dispose(plus(entry.sentAmount, fee), ZERO);
  } else if (keeps || category === 'withdrawal') {
    if (category === 'withdrawal') engine.remove(coin, entry.sentAmount, atMs);
    yield* dispose(fee, ZERO);
  } else {
    const valuation = await valueOf(coin, entry.sentAmount, atMs);
    yield* dispose(plus(entry.sentAmount, fee), valuation?.value ?? null);
  }
}
