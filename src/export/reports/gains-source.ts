import type pg from 'pg';

import { loadSuppliedLots } from '../../accounting/cost-basis/supplied-lots.ts';
import { type AwayLoss, AwayLosses, loadAwayLosses } from '../../accounting/gains/away-losses.ts';
import { checkpointKey } from '../../accounting/gains/gains-checkpoint-key.ts';
import type { GainsEvent } from '../../accounting/gains/gains-event.ts';
import { type GainsMethod, lotMethodOf } from '../../accounting/gains/gains-method.ts';
import { SuppliedCosts, type SuppliedLot } from '../../accounting/gains/supplied-costs.ts';
import { SuppliedProceeds, type SuppliedSale } from '../../accounting/gains/supplied-proceeds.ts';
import { THIRTY_DAYS, type UkMatch, UkMatcher } from '../../accounting/gains/uk-matching.ts';
import { type LotSink, walkHistory, type WalkOptions } from '../../accounting/gains/walk-history.ts';
import { LotEngine } from '../../accounting/lots/lot-engine.ts';
import { DEFAULT_LONG_TERM_DAYS, DEFAULT_LOT_METHOD } from '../../accounting/lots/lot-method.ts';
import { DEFAULT_TOLERANCE_MS } from '../../accounting/prices/memory-price-book.ts';
import { openPriceBook } from '../../accounting/prices/open-price-book.ts';
import type { PriceBook } from '../../accounting/prices/price-book.ts';
import { loadSuppliedProceeds } from '../../accounting/proceeds/load-supplied-proceeds.ts';
import { readLedgerEntries } from '../../booking/ledger-entry-cursor.ts';
import { type Stream, TAXED_HISTORIES } from '../../streams/registry.ts';
import type { ReportParams } from '../report-definition.ts';
import { checkpointedWalk } from './checkpointed-walk.ts';
import { sharedWalk } from './shared-gains-walks.ts';

export const DEFAULT_VALUATION_CURRENCY = 'USDT';

/**
 * The streams the gains walk reads (ledger-entry-cursor.ts: the ledger entries with `walletLedgers`):
 * every history declaring treatments (spot, the futures ledger, every wallet ledger: the registry's
 * TAXED_HISTORIES), so a gap in any of them refuses or marks the export instead of silently
 * changing lots, pools and gains. A new history in the registry is read and checked with no edit.
 */
export const GAINS_WALK_STREAMS: readonly Stream[] = TAXED_HISTORIES;

export interface LotSettings {
  readonly method: GainsMethod;
  readonly longTermDays: number;
  readonly currency: string;
  readonly toleranceMs: number;
}

export function lotSettings(params: ReportParams): LotSettings {
  return {
    method: params.method ?? DEFAULT_LOT_METHOD,
    longTermDays: params.longTermDays ?? DEFAULT_LONG_TERM_DAYS,
    currency: params.valuationCurrency ?? DEFAULT_VALUATION_CURRENCY,
    toleranceMs: params.priceToleranceMs ?? DEFAULT_TOLERANCE_MS,
  };
}

/**
 * Opens a price book for a walk; tests swap in a memory book. `fromMs`: the walk values nothing
 * before it (it resumes from a checkpoint), so the book may skip the points older than the tolerance.
 */
export type OpenBook = (
  db: pg.ClientBase,
  accountId: string,
  settings: LotSettings,
  fromMs?: number,
) => Promise<PriceBook>;

export const openStoredBook: OpenBook = (db, accountId, settings, fromMs) =>
  openPriceBook(db, { accountId, currency: settings.currency, toleranceMs: settings.toleranceMs, fromMs });

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Every gains event of the account's stored spot and futures history up to the period's end (lots carry in
 * from before the period), priced by the book, in walk order, matched by the method's lot order
 * (`de`: FIFO). Events before the period are computed (they shape the lots) but not yielded. The
 * walk starts from a stored lot state at or before the period's start where one is valid
 * (checkpointed-walk.ts), with the same events as from the first record.
 */
export function gainsEvents(
  params: ReportParams,
  db: pg.ClientBase,
  settings: LotSettings,
  openBook: OpenBook = openStoredBook,
): AsyncGenerator<GainsEvent> {
  return shareable('lots', lotGainsEvents, params, db, settings, openBook);
}

async function* lotGainsEvents(
  params: ReportParams,
  db: pg.ClientBase,
  settings: LotSettings,
  openBook: OpenBook,
  inputsRead: () => void,
): AsyncGenerator<GainsEvent> {
  const key = checkpointKey(params.accountId, settings);
  const supplied = await loadSuppliedLots(db, params.accountId);
  // Supplied proceeds change no lot: a walk resumed from a checkpoint applies them as the full walk does.
  const proceeds = await loadSuppliedProceeds(db, params.accountId);
  const losses = await loadAwayLosses(db, params.accountId);
  // Only over the stored prices: the input log sees those, not a book a caller brought (tests'
  // memory books). Supplied costs are consumed by deposits as the walk goes, which a lot state does
  // not record: an account with any walks from the first record (docs/reports.md, "Unknown cost").
  // So does one with coins decided lost: a loss takes from what is away, which a lot state does not hold.
  if (key !== null && openBook === openStoredBook && supplied.length === 0 && losses.length === 0) {
    // Read once its snapshot holds: the change log it stores its checkpoints' counts from included.
    yield* checkpointedWalk(params, db, settings, openBook, key, Date.now(), proceeds, inputsRead);
    return;
  }
  inputsRead();
  const engine = (currency: string) => new LotEngine(lotMethodOf(settings.method), currency);
  yield* walkPeriod(params, db, settings, openBook, engine, 0, (match) => match.disposedAtMs, {
    supplied,
    proceeds,
    losses,
  });
}

/**
 * The same walk under HMRC's share matching (uk-matching.ts). A disposal near the period's end is
 * matched with acquisitions in the 30 days after it, so the history is read 31 days past the end
 * (as far as it is stored); disposals and income after the end are not yielded. Always from the
 * first record: the matcher's state is never checkpointed (gains-checkpoint-key.ts says why).
 */
export function ukGainsEvents(
  params: ReportParams,
  db: pg.ClientBase,
  settings: LotSettings,
  openBook: OpenBook = openStoredBook,
): AsyncGenerator<GainsEvent<UkMatch>> {
  return shareable('uk-shares', ukMatchedEvents, params, db, settings, openBook);
}

async function* ukMatchedEvents(
  params: ReportParams,
  db: pg.ClientBase,
  settings: LotSettings,
  openBook: OpenBook,
  inputsRead: () => void,
): AsyncGenerator<GainsEvent<UkMatch>> {
  const matcher = (currency: string) => new UkMatcher(currency);
  const supplied = await loadSuppliedLots(db, params.accountId);
  const proceeds = await loadSuppliedProceeds(db, params.accountId);
  const losses = await loadAwayLosses(db, params.accountId);
  inputsRead();
  // HMRC apportions a fee paying an exchange of two tokens between them (walk-trade.ts).
  const options = { supplied, proceeds, losses, apportionTradeFees: true };
  yield* walkPeriod(
    params,
    db,
    settings,
    openBook,
    matcher,
    (THIRTY_DAYS + 1) * DAY_MS,
    (m) => m.disposedAtMs,
    options,
  );
}

type Walker<E> = (
  params: ReportParams,
  db: pg.ClientBase,
  settings: LotSettings,
  openBook: OpenBook,
  inputsRead: () => void,
) => AsyncGenerator<E>;

/**
 * The walk's events, shared with the exports made together that walk alike (shared-gains-walks.ts).
 * Only walks over the stored prices are one walk: a book a caller brought (tests') is its own.
 */
function shareable<E>(
  kind: WalkKind,
  walker: Walker<E>,
  params: ReportParams,
  db: pg.ClientBase,
  settings: LotSettings,
  openBook: OpenBook,
): AsyncGenerator<E> {
  const walk = (inputsRead: () => void) => walker(params, db, settings, openBook, inputsRead);
  return openBook === openStoredBook ? sharedWalk(walkKey(kind, params, settings), walk) : walk(() => undefined);
}

type WalkKind = 'lots' | 'uk-shares';

/** Everything a walk's events depend on besides the database: reports alike in all of it share one walk. */
function walkKey(kind: WalkKind, params: ReportParams, settings: LotSettings): string {
  const { period } = params;
  return JSON.stringify([
    kind,
    params.accountId,
    period.start.getTime(),
    period.end.getTime(),
    period.tz,
    params.coin ?? null,
    settings.method,
    settings.longTermDays,
    settings.currency,
    settings.toleranceMs,
  ]);
}

async function* walkPeriod<M>(
  params: ReportParams,
  db: pg.ClientBase,
  settings: LotSettings,
  openBook: OpenBook,
  sinkFor: (currency: string) => LotSink<M>,
  readPastEndMs: number,
  disposedAtMs: (match: M) => number,
  options: {
    readonly supplied: readonly SuppliedLot[];
    readonly proceeds: readonly SuppliedSale[];
    readonly losses: readonly AwayLoss[];
    readonly apportionTradeFees?: boolean;
  },
): AsyncGenerator<GainsEvent<M>> {
  const book = await openBook(db, params.accountId, settings);
  const walkOptions: WalkOptions = {
    supplied: new SuppliedCosts(options.supplied, book.currency),
    proceeds: new SuppliedProceeds(options.proceeds, book.currency),
    losses: new AwayLosses(options.losses),
    apportionTradeFees: options.apportionTradeFees === true,
  };
  try {
    const startMs = params.period.start.getTime();
    const endMs = params.period.end.getTime();
    const until = new Date(endMs + readPastEndMs);
    const entries = readLedgerEntries(db, params.accountId, until);
    for await (const event of walkHistory(entries, book, sinkFor(book.currency), walkOptions)) {
      const atMs = event.kind === 'disposal' ? disposedAtMs(event.match) : event.atMs;
      if (atMs >= startMs && atMs < endMs) yield event;
    }
  } finally {
    await book.close();
  }
}
