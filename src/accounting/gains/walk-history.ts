import type { Decimal } from 'decimal.js';

import type { LedgerEntry } from '../../booking/ledger-entry.ts';
import { money, plus, ZERO } from '../lots/lot-arithmetic.ts';
import type { AcquireOptions, LotMatch } from '../lots/lot-engine.ts';
import type { PriceBook, Valuation } from '../prices/price-book.ts';
import { entryTreatment } from '../treatments/entry-treatment.ts';
import { type AwayLoss, AwayLosses } from './away-losses.ts';
import type { GainsEvent } from './gains-event.ts';
import { OwnMovesAway } from './own-moves-away.ts';
import { ReviewedRecords } from './reviewed-records.ts';
import { SuppliedCosts } from './supplied-costs.ts';
import { SuppliedProceeds } from './supplied-proceeds.ts';
import { walkTrade } from './walk-trade.ts';

/**
 * What the walk hands its acquisitions and disposals to: the lot engine (matches at once), or the
 * UK matcher, which holds a day's disposal back until the 30 days after it are known and hands its
 * matches out when time has moved on (`advance`, before each entry) or the history ends (`finish`).
 */
export interface LotSink<M> {
  acquire(
    coin: string,
    quantity: Decimal,
    cost: Decimal | null,
    atMs: number,
    recordIds: string,
    options?: AcquireOptions,
  ): void;
  /** `proceeds` net of `incidental` costs (fees paying for the disposal, valued), if any. */
  dispose(
    coin: string,
    quantity: Decimal,
    proceeds: Decimal | null,
    atMs: number,
    recordIds: string,
    incidental?: Decimal | null,
  ): readonly M[];
  /** Coins leave without a disposal (a withdrawal); a part beyond the holdings comes back flagged. */
  withdraw(coin: string, quantity: Decimal, atMs: number, recordIds: string): readonly M[];
  advance?(atMs: number): readonly M[];
  finish?(): readonly M[];
}

/** How the walk applies the rules where methods differ (docs/reports.md, "Treatments"). */
export interface WalkOptions {
  /**
   * `uk`: a trade fee between two tokens is apportioned half to the disposal and half to the
   * acquisition (HMRC CRYPTO22150: "apportioned between both assets on a just and reasonable basis").
   * Otherwise the whole fee is an incidental cost of the disposal (as before).
   */
  readonly apportionTradeFees?: boolean;
  /** Costs and dates supplied by `cost-basis import` for coins moved in. */
  readonly supplied?: SuppliedCosts;
  /** Proceeds of P2P sells supplied by `proceeds import` (the records state none). */
  readonly proceeds?: SuppliedProceeds;
  /** What own moves hold away at the walk's first entry (a walk resumed from a checkpoint: ownMovesAwayBefore). */
  readonly away?: OwnMovesAway;
  /** The accountant's `lost` decisions on coins away (away-losses.ts): disposals for nothing. */
  readonly losses?: AwayLosses;
}

export type ValueOf = (coin: string, quantity: Decimal, atMs: number) => Promise<Valuation | null>;

/**
 * Walks the ledger (spot, futures, margin and P2P wallets) in time order through the lot engine and yields every
 * disposal match and every income event. Holds nothing but the engine's open lots and the price
 * book's latest points, so memory does not grow with the number of entries. Each entry is treated
 * as the treatment table says (src/accounting/treatments, docs/reports.md "Treatments"):
 *
 * - trade legs: walk-trade.ts (a fee paying the trade is an allowable cost of it; in a third coin,
 *   that coin is disposed of at market value, HMRC CRYPTO22150, TCGA92 s38(1)(c));
 * - a fee paying no trade (`other-fee`, the fee of any non-trade entry): a disposal at market value,
 *   with no further allowable cost (CRYPTO22150, CRYPTO22280);
 * - income: valued at receipt, an income event and a lot at that value;
 * - a rebate: a lot of cost 0 (nothing was given for it: TCGA92 s38(1)(a));
 * - own moves (locks, earn, spot <-> futures): the lots stay; coming back beyond what went away
 *   (OwnMovesAway), coins of unknown cost as a deposit's;
 * - a deposit: supplied lots (cost-basis import) or a lot of unknown cost, never invented;
 * - a withdrawal: its lots leave, nothing realized; beyond the holdings it is flagged;
 * - coins away that the accountant decided `lost` (away-losses.ts): a disposal for nothing at the
 *   decision's instant of what of them is still away (TCGA92 s24(1): the entire loss of an asset
 *   is a disposal; the decision is the accountant's, supplied and logged);
 * - a margin loan (`borrowing`): the borrowed coins are acquired at market value (the borrower may
 *   deal with them as its own: beneficial ownership, CRYPTO61620; a Sachdarlehen, BGB §607), the
 *   repaid coins disposed of at market value (the debt released their consideration);
 * - a sale whose proceeds the record does not state (a P2P sell): a disposal, proceeds unknown
 *   unless `proceeds import` supplied them;
 * - a futures result paid in the margin coin: all of it, its fee too, disposed of at market value
 *   (the fee is already part of the futures result, its `fees`: no incidental cost here);
 * - anything else: acquired or disposed of at market value;
 *   a margin record to review (`confiscated`, `compensate`) flags the rows disposing of it, and
 *   the rows consuming the lots it brought in (`review:compensate-lot`, reviewed-records.ts).
 */
export async function* walkHistory<M = LotMatch>(
  entries: AsyncIterable<LedgerEntry>,
  book: PriceBook,
  engine: LotSink<M>,
  options: WalkOptions = {},
): AsyncGenerator<GainsEvent<M>> {
  const reviewed = new ReviewedRecords();
  // Market values enter the lots and proceeds at MONEY_PLACES (lot-arithmetic.ts).
  const valueOf: ValueOf = async (coin, quantity, atMs) => {
    if (quantity.isZero()) return null;
    const valuation = await book.value(coin, quantity, new Date(atMs));
    return valuation && { ...valuation, value: money(valuation.value) };
  };
  const supplied = options.supplied ?? new SuppliedCosts([], book.currency);
  const away = options.away ?? new OwnMovesAway();
  const proceeds = options.proceeds ?? new SuppliedProceeds([], book.currency);
  const losses = options.losses ?? new AwayLosses([]);
  for await (const entry of entries) {
    for (const event of lose(losses.dueBefore(entry.atMs), engine, away)) yield reviewed.mark(event);
    for (const match of engine.advance?.(entry.atMs) ?? []) yield reviewed.mark({ kind: 'disposal', match });
    // A third-coin fee is walked with its trade (walk-trade.ts), not again on its own.
    if (entry.attached === true) continue;
    reviewed.note(entry);
    const events =
      entry.category === 'trade' && entry.flag === null && entry.sentCoin !== null && entry.receivedCoin !== null
        ? walkTrade(
            entry,
            { sentCoin: entry.sentCoin, receivedCoin: entry.receivedCoin },
            engine,
            valueOf,
            book.currency,
            options.apportionTradeFees === true,
          )
        : single(entry, engine, valueOf, { supplied, proceeds }, away);
    for await (const event of events) yield reviewed.mark(event);
  }
  for (const event of lose(losses.rest(), engine, away)) yield reviewed.mark(event);
  for (const match of engine.finish?.() ?? []) yield reviewed.mark({ kind: 'disposal', match });
}

/**
 * Coins away decided lost: what of them is still away leaves the coins away and is disposed of
 * for nothing at the decision's instant (its lots' cost becomes the loss). Coming back later,
 * they are coins of unknown cost, as anything beyond what is away (OwnMovesAway).
 */
function* lose<M>(due: readonly AwayLoss[], engine: LotSink<M>, away: OwnMovesAway): Generator<GainsEvent<M>> {
  for (const loss of due) {
    const quantity = away.lose(loss.coin, loss.quantity);
    if (quantity.isZero()) continue;
    for (const match of engine.advance?.(loss.lostAtMs) ?? []) yield { kind: 'disposal', match };
    for (const match of engine.dispose(loss.coin, quantity, ZERO, loss.lostAtMs, AwayLosses.recordIds(loss)))
      yield { kind: 'disposal', match };
  }
}

async function* single<M>(
  entry: LedgerEntry,
  engine: LotSink<M>,
  valueOf: ValueOf,
  { supplied, proceeds }: { readonly supplied: SuppliedCosts; readonly proceeds: SuppliedProceeds },
  away: OwnMovesAway,
): AsyncGenerator<GainsEvent<M>> {
  const { atMs, recordIds } = entry;
  const { kind, ledger } = entryTreatment(entry);
  const incoming = entry.receivedCoin !== null && entry.receivedAmount !== null ? entry.receivedAmount : null;
  // A record of amount 0 (a fee-only record's other half) brings nothing: no income, no lot.
  if (incoming !== null && entry.receivedCoin !== null && kind !== 'own-move' && !incoming.isZero()) {
    yield* acquireIncoming(entry, entry.receivedCoin, incoming, kind, engine, valueOf, supplied);
  }
  const ownAway = kind === 'own-move' && OwnMovesAway.applies(entry);
  if (ownAway && incoming !== null && entry.receivedCoin !== null && !incoming.isZero()) {
    const beyond = away.back(entry.receivedCoin, incoming);
    if (beyond.gt(ZERO))
      yield* acquireIncoming(entry, entry.receivedCoin, beyond, 'deposit', engine, valueOf, supplied);
  }
  if (entry.sentCoin === null || entry.sentAmount === null) return;
  if (ownAway) away.out(entry.sentCoin, entry.sentAmount);
  const coin = entry.sentCoin;
  const fee = entry.feeCoin === coin && entry.feeAmount !== null ? entry.feeAmount : ZERO;
  // Module functions, not closures: this runs for every record of every walk (and under tsx each
  // closure made is also named at run time).
  const disposed = { engine, coin, atMs, recordIds };
  if (kind === 'other-fee' || kind === 'trade-fee' || kind === 'income') {
    // A fee paying no trade (or income paid back, e.g. interest paid): tokens used to pay it are
    // disposed of at market value, with no further allowable cost (HMRC CRYPTO22150, CRYPTO22280).
    const total = plus(entry.sentAmount, fee);
    yield* disposalEvents(disposed, total, await marketValue(valueOf, coin, atMs, total));
  } else if (kind === 'own-move' || kind === 'withdrawal') {
    // A withdrawal's coins leave the lots: nothing realized.
    if (kind === 'withdrawal') {
      for (const match of engine.withdraw(coin, entry.sentAmount, atMs, recordIds)) yield { kind: 'disposal', match };
    }
    // The move's own fee pays for no trade: a disposal at market value.
    yield* disposalEvents(disposed, fee, await marketValue(valueOf, coin, atMs, fee));
  } else if (kind === 'unknown-proceeds') {
    // Sold for fiat the record does not state (a P2P sell): the proceeds `proceeds import` supplied
    // (from the bank statement; the row's record ids name their source, as a supplied lot's do), or
    // none: never the market value (the row is flagged review:unknown-proceeds).
    const sale = proceeds.of(recordIds);
    const quantity = plus(entry.sentAmount, fee);
    if (sale === undefined) yield* disposalEvents(disposed, quantity, null);
    else {
      const ids = `${recordIds}<${sale.source}`;
      for (const match of engine.dispose(
        coin,
        quantity,
        sale.proceeds,
        atMs,
        ids,
        feeAt(sale.proceeds, fee, entry.sentAmount),
      ))
        yield { kind: 'disposal', match };
    }
  } else if (ledger === 'futures') {
    // A futures result paid in the margin coin, and its fee: the fee is part of the futures result
    // (the futures rows' `fees`), so no incidental cost of this disposal: every coin paid out,
    // the fee's too, is disposed of at market value, as an open's fee and a profitable close's
    // `:fee` row are (other-fee; CRYPTO22150, CRYPTO22280). Never both, never for nothing.
    const paid = plus(entry.sentAmount, fee);
    yield* disposalEvents(disposed, paid, await marketValue(valueOf, coin, atMs, paid));
  } else {
    // A disposal at market value, its own fee an incidental cost (it brings no proceeds): so is a
    // repaid margin loan (`borrowing`: the coins returned are disposed of at market value, the
    // release of the debt their consideration; CRYPTO61620, BGB §607: docs/reports.md).
    const value = await marketValue(valueOf, coin, atMs, entry.sentAmount);
    yield* disposalEvents(disposed, plus(entry.sentAmount, fee), value, feeAt(value, fee, entry.sentAmount));
  }
}

/** The disposal of `quantity` of a record's sent coin, as events. */
function* disposalEvents<M>(
  { engine, coin, atMs, recordIds }: { engine: LotSink<M>; coin: string; atMs: number; recordIds: string },
  quantity: Decimal,
  proceeds: Decimal | null,
  incidental: Decimal | null = null,
): Generator<GainsEvent<M>> {
  for (const match of engine.dispose(coin, quantity, proceeds, atMs, recordIds, incidental))
    yield { kind: 'disposal', match };
}

/** The own fee's value at the disposal's own price (proceeds / amount): an incidental cost of it. */
function feeAt(proceeds: Decimal | null, fee: Decimal, sent: Decimal | null): Decimal | null {
  return proceeds === null || fee.isZero() || sent === null || sent.isZero()
    ? null
    : money(proceeds.times(fee).div(sent));
}

async function marketValue(valueOf: ValueOf, coin: string, atMs: number, quantity: Decimal): Promise<Decimal | null> {
  return (await valueOf(coin, quantity, atMs))?.value ?? null;
}

async function* acquireIncoming<M>(
  entry: LedgerEntry,
  coin: string,
  quantity: Decimal,
  kind: string,
  engine: LotSink<M>,
  valueOf: ValueOf,
  supplied: SuppliedCosts,
): AsyncGenerator<GainsEvent<M>> {
  const { atMs, recordIds } = entry;
  if (kind === 'deposit') {
    // Coins from outside: their cost and date are the owner's records, not the market's. What
    // `cost-basis import` supplied prices them; the rest stays unknown (flagged where consumed).
    let left = quantity;
    for (const piece of supplied.take(coin, quantity, atMs)) {
      engine.acquire(coin, piece.quantity, piece.cost, atMs, `${recordIds}<${piece.source}`, {
        acquiredAtMs: piece.acquiredAtMs,
      });
      left = left.minus(piece.quantity);
    }
    if (left.gt(ZERO)) engine.acquire(coin, left, null, atMs, recordIds, { unknownCost: true });
    return;
  }
  if (kind === 'rebate') {
    // Part of a fee given back: nothing was given for these coins, so they cost nothing; the fee
    // it rebates is so reduced over the coins' life (TCGA92 s38(1)(a)).
    engine.acquire(coin, quantity, ZERO, atMs, recordIds);
    return;
  }
  // Everything else comes in at market value: income, results, and borrowed coins (acquired: the
  // borrower may deal with them as its own, CRYPTO61620; BGB §607; no income).
  const valuation = await valueOf(coin, quantity, atMs);
  if (kind === 'income') {
    yield {
      kind: 'income',
      atMs,
      coin,
      quantity,
      value: valuation?.value ?? null,
      priceSource: valuation?.source ?? null,
      spotTaxType: entry.spotTypes,
      recordId: recordIds,
    };
  }
  // Coins paid in by a record to review (a margin `compensate`): the rows consuming them say so.
  const review = ReviewedRecords.lotFlag(entry);
  engine.acquire(coin, quantity, valuation?.value ?? null, atMs, recordIds, review === undefined ? {} : { review });
}
