import type pg from 'pg';

import type { GainsEvent } from '../../accounting/gains/gains-event.ts';
import { walkHistory } from '../../accounting/gains/walk-history.ts';
import { LotEngine } from '../../accounting/lots/lot-engine.ts';
import { DEFAULT_LONG_TERM_DAYS, DEFAULT_LOT_METHOD, type LotMethod } from '../../accounting/lots/lot-method.ts';
import { DEFAULT_TOLERANCE_MS } from '../../accounting/prices/memory-price-book.ts';
import { openPriceBook } from '../../accounting/prices/open-price-book.ts';
import type { PriceBook } from '../../accounting/prices/price-book.ts';
import { readLedgerEntries } from '../../booking/ledger-entry-cursor.ts';
import type { ReportParams } from '../report-definition.ts';

export const DEFAULT_VALUATION_CURRENCY = 'USDT';

export interface LotSettings {
  readonly method: LotMethod;
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

/** Opens a price book for a walk; tests swap in a memory book. */
export type OpenBook = (db: pg.ClientBase, accountId: string, settings: LotSettings) => Promise<PriceBook>;

export const openStoredBook: OpenBook = (db, accountId, settings) =>
  openPriceBook(db, { accountId, currency: settings.currency, toleranceMs: settings.toleranceMs });

/**
 * Every gains event of the account's stored spot history up to the period's end (lots carry in
 * from before the period), priced by the book, in walk order. Events before the period are
 * computed (they shape the lots) but not yielded.
 */
export async function* gainsEvents(
  params: ReportParams,
  db: pg.ClientBase,
  settings: LotSettings,
  openBook: OpenBook = openStoredBook,
): AsyncGenerator<GainsEvent> {
  const book = await openBook(db, params.accountId, settings);
  try {
    const engine = new LotEngine(settings.method, book.currency);
    const startMs = params.period.start.getTime();
    const entries = readLedgerEntries(db, params.accountId, params.period.end);
    for await (const event of walkHistory(entries, book, engine)) {
      const atMs = event.kind === 'disposal' ? event.match.disposedAtMs : event.atMs;
      if (atMs >= startMs) yield event;
    }
  } finally {
    await book.close();
  }
}
