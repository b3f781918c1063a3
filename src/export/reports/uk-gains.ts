import { RULES_VERSION } from '../../accounting/gains/gains-method.ts';
import { ukTaxYear } from '../../accounting/gains/uk-day.ts';
import type { UkMatch } from '../../accounting/gains/uk-matching.ts';
import { minus, plain } from '../../accounting/lots/lot-arithmetic.ts';
import type { ComputedReportDefinition, ReportRow } from '../report-definition.ts';
import { decimal, text } from '../report-definition.ts';
import { GAINS_WALK_STREAMS, lotSettings, type OpenBook, openStoredBook, ukGainsEvents } from './gains-source.ts';
import {
  EXCEEDS_HOLDINGS,
  GAIN_ROW_AMOUNTS,
  proceedsUnknown,
  UNKNOWN_COST,
  UNKNOWN_PROCEEDS,
  UNPRICED,
  walletsOf,
  WITHDRAWAL_EXCEEDS_HOLDINGS,
} from './realized-gains.ts';

/** A UK match's flag (realized-gains.ts's matchFlag, by HMRC rule). */
export function ukMatchFlag(match: UkMatch, gain: string | null): string | null {
  if (match.rule === 'withdrawal-beyond-holdings') return WITHDRAWAL_EXCEEDS_HOLDINGS;
  if (match.rule === 'beyond-holdings') return EXCEEDS_HOLDINGS;
  if (match.unknownCost === true) return UNKNOWN_COST;
  if (proceedsUnknown(match.proceeds, match.disposalRecordIds)) return UNKNOWN_PROCEEDS;
  return gain === null ? UNPRICED : null;
}

/** The cells of one UK match; gain is proceeds - allowable_cost of the printed values, exactly. */
export function ukGainRow(match: UkMatch, currency: string, review?: string): ReportRow {
  const gain = match.proceeds !== null && match.cost !== null ? plain(minus(match.proceeds, match.cost)) : null;
  return {
    cells: [
      ukTaxYear(match.disposedAtMs),
      match.disposedOn,
      match.coin,
      match.rule,
      match.acquiredOn,
      plain(match.quantity),
      match.proceeds === null ? null : plain(match.proceeds),
      match.cost === null ? null : plain(match.cost),
      gain,
      plain(match.poolQuantity),
      match.poolCost === null ? null : plain(match.poolCost),
      'uk',
      RULES_VERSION.uk,
      currency,
      match.disposalRecordIds,
      match.acquisitionRecordIds,
      walletsOf(match.disposalRecordIds),
    ],
    flag: ukMatchFlag(match, gain) ?? review ?? null,
  };
}

/**
 * realized-gains under `--method uk`: HMRC's share matching (docs/reports.md, "UK share
 * matching"). One row per part of a day's disposal of a token and the rule that matched it, with
 * the section 104 pool after it; London dates, UK tax years (6 April to 5 April).
 */
export function ukGainsReportWith(openBook: OpenBook): ComputedReportDefinition {
  return {
    name: 'realized-gains',
    title: 'Realized gains (UK share matching)',
    description:
      'one row per part of a day’s disposal of a token and the HMRC rule that matched it (same-day, 30-day with the acquisition’s date, s104 pool), with proceeds, allowable cost, gain and the pool after it, in pounds',
    streams: GAINS_WALK_STREAMS,
    closedPositionsBeforeLedger: true,
    coverage: 'history',
    accepts: { coin: true, includePending: false, lots: true, valuation: true },
    reviewAmounts: GAIN_ROW_AMOUNTS,
    columns: [
      text('tax_year'),
      text('disposed_on'),
      text('coin'),
      text('rule'),
      text('acquired_on'),
      decimal('quantity'),
      decimal('proceeds'),
      decimal('allowable_cost'),
      decimal('gain'),
      decimal('pool_quantity'),
      decimal('pool_cost'),
      text('method'),
      text('rules_version'),
      text('valuation_currency'),
      text('disposal_record_ids'),
      text('acquisition_record_ids'),
      text('wallet'),
    ],
    kind: 'computed',
    async *rows(params, db) {
      const settings = lotSettings(params);
      for await (const event of ukGainsEvents(params, db, settings, openBook)) {
        if (event.kind !== 'disposal') continue;
        if (params.coin !== undefined && event.match.coin !== params.coin) continue;
        yield ukGainRow(event.match, settings.currency, event.review);
      }
    },
  };
}

export const ukGainsReport = ukGainsReportWith(openStoredBook);
