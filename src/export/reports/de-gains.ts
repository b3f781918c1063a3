import type { Decimal } from 'decimal.js';

import { daysHeld, deYear, taxableSale } from '../../accounting/gains/de-private-sales.ts';
import { RULES_VERSION } from '../../accounting/gains/gains-method.ts';
import { minus, plain, plus, ZERO } from '../../accounting/lots/lot-arithmetic.ts';
import type { LotMatch } from '../../accounting/lots/lot-engine.ts';
import type { ComputedReportDefinition, ReportRow } from '../report-definition.ts';
import { decimal, text } from '../report-definition.ts';
import { GAINS_WALK_STREAMS, gainsEvents, lotSettings, type OpenBook, openStoredBook } from './gains-source.ts';
import { localTime } from './local-time.ts';
import { GAIN_ROW_AMOUNTS, matchFlag, reportedCostBasis, walletsOf } from './realized-gains.ts';

/**
 * Whether a match is a taxable private sale: held one year or less. A part sold beyond the
 * holdings has no acquisition date: taxable, the conservative reading, and flagged for review.
 */
export function deTaxable(match: LotMatch): boolean {
  return match.acquiredAtMs === null || taxableSale(match.acquiredAtMs, match.disposedAtMs);
}

/**
 * A match's figures as Anlage SO asks for them (EStG §23 (3) Satz 1): the Veräußerungspreis gross
 * (the walk's proceeds are net of the fees paying for the sale), the Anschaffungskosten, and the
 * Werbungskosten (those fees); gain = proceeds - cost_basis - selling_costs, the walk's net gain.
 */
export function deFigures(match: LotMatch): { proceeds: Decimal | null; sellingCosts: Decimal } {
  const sellingCosts = match.incidentalCost ?? ZERO;
  return { proceeds: match.proceeds === null ? null : plus(match.proceeds, sellingCosts), sellingCosts };
}

/** The cells of one FIFO match under section 23 EStG; gain is proceeds - cost_basis - selling_costs exactly. */
export function deGainRow(match: LotMatch, currency: string, tz: string, review?: string): ReportRow {
  const costBasis = reportedCostBasis(match);
  const { proceeds, sellingCosts } = deFigures(match);
  const gain = proceeds !== null && costBasis !== null ? plain(minus(minus(proceeds, costBasis), sellingCosts)) : null;
  const held = match.acquiredAtMs === null ? null : daysHeld(match.acquiredAtMs, match.disposedAtMs);
  return {
    cells: [
      String(deYear(match.disposedAtMs)),
      localTime(match.disposedAtMs, tz),
      match.coin,
      plain(match.quantity),
      proceeds === null ? null : plain(proceeds),
      costBasis === null ? null : plain(costBasis),
      plain(sellingCosts),
      gain,
      match.acquiredAtMs === null ? null : localTime(match.acquiredAtMs, tz),
      held === null ? null : String(held),
      deTaxable(match) ? 'yes' : 'no',
      'de',
      RULES_VERSION.de,
      currency,
      match.disposalRecordIds,
      match.lotRecordIds,
      walletsOf(match.disposalRecordIds),
    ],
    flag: matchFlag(match, gain) ?? review ?? null,
  };
}

/**
 * realized-gains under `--method de`: private sales (section 23 EStG) matched first in, first out
 * within the account, each with its holding period and whether it is taxable (held one year or
 * less); docs/reports.md, "German private sales".
 */
export function deGainsReportWith(openBook: OpenBook): ComputedReportDefinition {
  return {
    name: 'realized-gains',
    title: 'Realized gains (German private sales, section 23 EStG)',
    description:
      'one row per disposal and the FIFO lot it consumed, with proceeds, cost, gain, days held and whether the sale is taxable (held one year or less), in euros',
    streams: GAINS_WALK_STREAMS,
    closedPositionsBeforeLedger: true,
    coverage: 'history',
    accepts: { coin: true, includePending: false, lots: true, valuation: true },
    reviewAmounts: GAIN_ROW_AMOUNTS,
    columns: [
      text('year'),
      text('disposed_at'),
      text('coin'),
      decimal('quantity'),
      decimal('proceeds'),
      decimal('cost_basis'),
      decimal('selling_costs'),
      decimal('gain'),
      text('acquired_at'),
      decimal('days_held'),
      text('taxable'),
      text('method'),
      text('rules_version'),
      text('valuation_currency'),
      text('disposal_record_ids'),
      text('lot_record_ids'),
      text('wallet'),
    ],
    kind: 'computed',
    async *rows(params, db) {
      const settings = lotSettings(params);
      for await (const event of gainsEvents(params, db, settings, openBook)) {
        if (event.kind !== 'disposal') continue;
        if (params.coin !== undefined && event.match.coin !== params.coin) continue;
        yield deGainRow(event.match, settings.currency, params.period.tz, event.review);
      }
    },
  };
}

export const deGainsReport = deGainsReportWith(openStoredBook);
