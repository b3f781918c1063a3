import { beancountJournal } from '../journal/beancount-journal.ts';
import { beancountCurrency } from '../journal/beancount-names.ts';
import type { ComputedReportDefinition } from '../report-definition.ts';
import { text } from '../report-definition.ts';

/** The operating currency when the installation names no valuation currency (config VALUATION_CURRENCY). */
const DEFAULT_OPERATING_CURRENCY = 'USDT';

/**
 * The period's spot records as a beancount journal (src/export/journal, docs/reports.md
 * "beancount") that bean-check accepts: a text file, one directive per row, with balance
 * assertions from the exchange's own balances.
 */
export const beancountReport: ComputedReportDefinition = {
  name: 'beancount',
  title: 'Beancount journal',
  description:
    "a double-entry journal of the period for beancount: one transaction per record or paired trade, with the exchange's balances as assertions",
  streams: ['spot'],
  accepts: { coin: false, includePending: false, valuation: true },
  columns: [text('directive')],
  textFile: { extension: '.beancount' },
  kind: 'computed',
  async *rows(params, db) {
    const journal = beancountJournal(db, {
      accountId: params.accountId,
      accountName: params.accountName ?? params.accountId,
      period: params.period,
      operatingCurrency: beancountCurrency(params.valuationCurrency ?? DEFAULT_OPERATING_CURRENCY),
    });
    for await (const entry of journal) yield { cells: [entry.text], flag: entry.flag };
  },
};
