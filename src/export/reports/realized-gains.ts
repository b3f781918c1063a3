import type { Decimal } from 'decimal.js';

import { minus, plain, ZERO } from '../../accounting/lots/lot-arithmetic.ts';
import type { LotMatch } from '../../accounting/lots/lot-engine.ts';
import { LEDGERS, typesTreatedAs } from '../../accounting/treatments/treatment-table.ts';
import { idPrefix } from '../../booking/text-safe-ids.ts';
import { historyTreatments, TAXED_HISTORIES } from '../../streams/registry.ts';
import type { ComputedReportDefinition, ReportRow } from '../report-definition.ts';
import { decimal, REVIEW_PREFIX, text } from '../report-definition.ts';
import {
  GAINS_WALK_STREAMS,
  gainsEvents,
  type LotSettings,
  lotSettings,
  type OpenBook,
  openStoredBook,
} from './gains-source.ts';
import { localTime } from './local-time.ts';

/**
 * Flag of a disposal part beyond the holdings: coins the ledger never saw come in (e.g. moved in
 * from the user's futures account, whose cost lies elsewhere). Their cost basis is written as 0,
 * the conservative convention tax tools use for a missing purchase history (the whole proceeds
 * are gain: never less tax than due), and the row is flagged for an accountant to supply it.
 */
export const EXCEEDS_HOLDINGS = `${REVIEW_PREFIX}disposal-exceeds-holdings`;
/** Flag of a row whose proceeds or cost basis could not be priced: left empty, never guessed. */
export const UNPRICED = `${REVIEW_PREFIX}unpriced`;
/**
 * Flag of a row that consumed coins moved in from outside whose cost and acquisition date nobody
 * supplied (`ledgerline cost-basis import`): cost left empty, never invented (docs/reports.md).
 */
export const UNKNOWN_COST = `${REVIEW_PREFIX}unknown-cost`;
/** The columns every gains report names a row's coin, quantity and proceeds by (manifest `reviewAmounts`). */
export const GAIN_ROW_AMOUNTS = { coin: 'coin', quantity: 'quantity', proceeds: 'proceeds' } as const;
/** Flag of a withdrawal of more than was held: nothing realized (0, 0, 0), only flagged. */
export const WITHDRAWAL_EXCEEDS_HOLDINGS = `${REVIEW_PREFIX}withdrawal-exceeds-holdings`;
/**
 * Flag of a disposal whose proceeds no record states: a P2P sell, paid in fiat outside the
 * exchange's ledgers (docs/reports.md, "Margin and P2P"). Proceeds left empty, never the market value.
 */
export const UNKNOWN_PROCEEDS = `${REVIEW_PREFIX}unknown-proceeds`;

/**
 * The id prefixes of the wallets with a type whose proceeds no record states (a P2P sell: treated
 * `unknown-proceeds`), from the histories' declarations.
 */
const UNKNOWN_PROCEEDS_IDS: readonly string[] = LEDGERS.filter(
  (ledger) => typesTreatedAs(ledger, 'unknown-proceeds').length > 0,
).map((ledger) => idPrefix(ledger));

/** Whether unpriced proceeds are a P2P sell's (its record id among the disposal's): unknown, not unpriced. */
export function proceedsUnknown(proceeds: unknown, disposalRecordIds: string): boolean {
  return (
    proceeds === null &&
    disposalRecordIds.split(/[ +]/).some((id) => UNKNOWN_PROCEEDS_IDS.some((prefix) => id.startsWith(prefix)))
  );
}

/**
 * The wallet each kind of record id names (text-safe-ids.ts), from the histories' declarations:
 * each history's wallet names its own ids and any it declares besides (a closed position: futures).
 */
const WALLET_OF_KIND: ReadonlyMap<string, string> = new Map(
  TAXED_HISTORIES.flatMap((stream) => {
    const { wallet, alsoIds = [] } = historyTreatments(stream);
    return [wallet, ...alsoIds].map((kind) => [kind, wallet] as const);
  }),
);

/** The order wallets are named in, whatever the order of the records (so `spot+margin` is one value): the registry's. */
const WALLET_ORDER: readonly string[] = LEDGERS;

/**
 * The `wallet` cell of a gains row: the wallet(s) its disposal's records come from (`spot`,
 * `futures`, `margin`, `p2p`; a UK day's disposal of records in two wallets `spot+margin`), so an
 * accountant sees where each row came from (docs/reports.md, "Margin and P2P").
 */
export function walletsOf(disposalRecordIds: string): string {
  const wallets = new Set<string>();
  for (const id of disposalRecordIds.split(/[ +]/)) {
    const wallet = WALLET_OF_KIND.get(id.slice(0, id.indexOf(':')));
    if (wallet !== undefined) wallets.add(wallet);
  }
  return WALLET_ORDER.filter((w) => wallets.has(w)).join('+');
}

/** The flag of a lot-engine match, in order of what an accountant must look at first. */
export function matchFlag(match: LotMatch, gain: string | null): string | null {
  if (match.withdrawal === true) return WITHDRAWAL_EXCEEDS_HOLDINGS;
  if (match.beyondHoldings) return EXCEEDS_HOLDINGS;
  if (match.unknownCost === true) return UNKNOWN_COST;
  if (proceedsUnknown(match.proceeds, match.disposalRecordIds)) return UNKNOWN_PROCEEDS;
  return gain === null ? UNPRICED : null;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whole 24-hour days between acquisition and disposal (UTC days have no DST). */
export function holdingDays(acquiredAtMs: number, disposedAtMs: number): number {
  return Math.floor((disposedAtMs - acquiredAtMs) / DAY_MS);
}

/** `long` when held more than `longTermDays` days (the usual "more than one year" with 365). */
export function termOf(days: number, longTermDays: number): 'short' | 'long' {
  return days > longTermDays ? 'long' : 'short';
}

/** The cost basis a match is reported with: 0 beyond the holdings (EXCEEDS_HOLDINGS), null unpriced. */
export function reportedCostBasis(match: LotMatch): Decimal | null {
  return match.beyondHoldings ? ZERO : match.costBasis;
}

/** The cells of one match; gain is proceeds - cost_basis of the printed values, exactly. */
export function gainRow(match: LotMatch, settings: LotSettings, tz: string, review?: string): ReportRow {
  const costBasis = reportedCostBasis(match);
  const proceeds = match.proceeds === null ? null : plain(match.proceeds);
  const cost = costBasis === null ? null : plain(costBasis);
  const gain = match.proceeds !== null && costBasis !== null ? plain(minus(match.proceeds, costBasis)) : null;
  const days = match.acquiredAtMs === null ? null : holdingDays(match.acquiredAtMs, match.disposedAtMs);
  // A record a person must look at (margin `confiscated`) is flagged after the match's own problems.
  const flag = matchFlag(match, gain) ?? review ?? null;
  return {
    cells: [
      localTime(match.disposedAtMs, tz),
      match.coin,
      plain(match.quantity),
      proceeds,
      cost,
      gain,
      match.acquiredAtMs === null ? null : localTime(match.acquiredAtMs, tz),
      days === null ? null : String(days),
      settings.method,
      settings.currency,
      match.disposalRecordIds,
      match.lotRecordIds,
      days === null ? null : termOf(days, settings.longTermDays),
      walletsOf(match.disposalRecordIds),
    ],
    flag,
  };
}

/** The realized-gains report over a given price book opener (tests pass a memory book). */
export function realizedGainsReportWith(openBook: OpenBook): ComputedReportDefinition {
  return {
    name: 'realized-gains',
    title: 'Realized gains',
    description:
      'one row per disposal and lot it consumed in the period (fifo, lifo, hifo or average over the whole history), with proceeds, cost basis, gain and holding period in the valuation currency',
    streams: GAINS_WALK_STREAMS,
    closedPositionsBeforeLedger: true,
    // A gap anywhere before the period loses lots, and so cost bases: the whole history must be synced.
    coverage: 'history',
    accepts: { coin: true, includePending: false, lots: true, valuation: true },
    reviewAmounts: GAIN_ROW_AMOUNTS,
    columns: [
      text('disposed_at'),
      text('coin'),
      decimal('quantity'),
      decimal('proceeds'),
      decimal('cost_basis'),
      decimal('gain'),
      text('acquired_at'),
      decimal('holding_days'),
      text('method'),
      text('valuation_currency'),
      text('disposal_record_ids'),
      text('lot_record_ids'),
      text('term'),
      text('wallet'),
    ],
    kind: 'computed',
    async *rows(params, db) {
      const settings = lotSettings(params);
      for await (const event of gainsEvents(params, db, settings, openBook)) {
        if (event.kind !== 'disposal') continue;
        if (params.coin !== undefined && event.match.coin !== params.coin) continue;
        yield gainRow(event.match, settings, params.period.tz, event.review);
      }
    },
  };
}

export const realizedGainsReport = realizedGainsReportWith(openStoredBook);
