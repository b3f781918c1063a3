import type { IncomeEvent } from '../../accounting/gains/gains-event.ts';
import { plain } from '../../accounting/lots/lot-arithmetic.ts';
import { INCOME_HEAD_REVIEW, incomeHeads } from '../../accounting/treatments/income-heads.ts';
import type { ComputedReportDefinition, ReportRow } from '../report-definition.ts';
import { decimal, text } from '../report-definition.ts';
import { GAINS_WALK_STREAMS, gainsEvents, lotSettings, type OpenBook, openStoredBook } from './gains-source.ts';
import { localTime } from './local-time.ts';
import { UNPRICED } from './realized-gains.ts';

export function incomeRow(event: IncomeEvent, currency: string, tz: string): ReportRow {
  const heads = incomeHeads(event);
  return {
    cells: [
      localTime(event.atMs, tz),
      event.coin,
      plain(event.quantity),
      event.value === null ? null : plain(event.value),
      currency,
      event.spotTaxType,
      event.recordId,
      event.priceSource,
      heads.uk.head,
      heads.de.head,
    ],
    flag: event.value === null ? UNPRICED : heads.uk.review || heads.de.review ? INCOME_HEAD_REVIEW : null,
  };
}

/**
 * The income report over a given price book opener. Income is walked with the lots (the same walk
 * as realized-gains) because each income event is also a lot at its value; the method does not
 * change income, so the report takes none.
 */
export function incomeReportWith(openBook: OpenBook): ComputedReportDefinition {
  return {
    name: 'income',
    title: 'Income',
    description:
      'rewards, interest, airdrops and other income received in the period, valued at receipt in the valuation currency (the cost of the lots they create)',
    streams: GAINS_WALK_STREAMS,
    closedPositionsBeforeLedger: true,
    accepts: { coin: true, includePending: false, valuation: true },
    columns: [
      text('received_at'),
      text('coin'),
      decimal('quantity'),
      decimal('value'),
      text('valuation_currency'),
      text('spot_tax_type'),
      text('record_id'),
      text('price_source'),
      text('uk_head'),
      text('de_head'),
    ],
    kind: 'computed',
    async *rows(params, db) {
      const settings = lotSettings(params);
      for await (const event of gainsEvents(params, db, settings, openBook)) {
        if (event.kind !== 'income') continue;
        if (params.coin !== undefined && event.coin !== params.coin) continue;
        yield incomeRow(event, settings.currency, params.period.tz);
      }
    },
  };
}

export const incomeReport = incomeReportWith(openStoredBook);
