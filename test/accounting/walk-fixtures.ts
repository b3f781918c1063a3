import { Decimal } from 'decimal.js';

import type { GainsEvent } from '../../src/accounting/gains/gains-event.ts';
import { SuppliedCosts, type SuppliedLot } from '../../src/accounting/gains/supplied-costs.ts';
import { SuppliedProceeds, type SuppliedSale } from '../../src/accounting/gains/supplied-proceeds.ts';
import type { UkMatch } from '../../src/accounting/gains/uk-matching.ts';
import { type LotSink, walkHistory } from '../../src/accounting/gains/walk-history.ts';
import { LotEngine, type LotMatch } from '../../src/accounting/lots/lot-engine.ts';
import { memoryPriceBook } from '../../src/accounting/prices/memory-price-book.ts';
import type { PricePointInput } from '../../src/accounting/prices/price-point.ts';
import type { LedgerEntry } from '../../src/booking/ledger-entry.ts';
import { matchFlag } from '../../src/export/reports/realized-gains.ts';

/**
 * What the treatment tests walk: ledger entries as the cursor reads them, day by day from one
 * instant, prices a second before each day's entries, and the walk's disposals in brief.
 */
export const DAY = 86_400_000;
export const t0 = Date.UTC(2026, 0, 5, 12);
export type Side = [string, string] | null;

/** A ledger entry on `day`: its tax type(s) in `spotTypes`, spot unless `extra` names a wallet. */
export function entryOn(
  day: number,
  id: string,
  types: string,
  category: string,
  sent: Side,
  received: Side,
  extra: Partial<LedgerEntry> = {},
): LedgerEntry {
  return {
    atMs: t0 + day * DAY,
    sentAmount: sent ? new Decimal(sent[0]) : null,
    sentCoin: sent ? sent[1] : null,
    receivedAmount: received ? new Decimal(received[0]) : null,
    receivedCoin: received ? received[1] : null,
    feeAmount: null,
    feeCoin: null,
    category,
    spotTypes: types,
    recordIds: id,
    flag: null,
    ...extra,
  };
}

export const price = (day: number, base: string, value: string, quote = 'GBP'): PricePointInput => ({
  at: new Date(t0 + day * DAY - 1000),
  base,
  quote,
  price: value,
  source: 'daily',
});

async function* from<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield await Promise.resolve(item);
}

/** The walk's events over `entries`, valued in GBP by `points`, with lots (and proceeds) supplied by an import. */
export async function walkEvents<M>(
  entries: LedgerEntry[],
  points: PricePointInput[],
  sink: LotSink<M>,
  options: { apportionTradeFees?: boolean; supplied?: SuppliedLot[]; proceeds?: SuppliedSale[] } = {},
): Promise<GainsEvent<M>[]> {
  const book = memoryPriceBook('GBP', points);
  const supplied = new SuppliedCosts(options.supplied ?? [], 'GBP');
  const proceeds = new SuppliedProceeds(options.proceeds ?? [], 'GBP');
  const out: GainsEvent<M>[] = [];
  for await (const e of walkHistory(from(entries), book, sink, { ...options, supplied, proceeds })) out.push(e);
  return out;
}

export const fifo = () => new LotEngine('fifo', 'GBP');
export const lots = (list: GainsEvent[]): LotMatch[] => list.flatMap((e) => (e.kind === 'disposal' ? [e.match] : []));
export const ukMatches = (list: GainsEvent<UkMatch>[]): UkMatch[] =>
  list.flatMap((e) => (e.kind === 'disposal' ? [e.match] : []));
/** A fifo disposal as `coin quantity proceeds cost flag`. */
export const brief = (m: LotMatch) =>
  `${m.coin} ${m.quantity.toFixed()} ${m.proceeds?.toFixed() ?? '-'} ${m.costBasis?.toFixed() ?? '-'} ${matchFlag(m, m.proceeds && m.costBasis ? 'x' : null) ?? ''}`.trim();
