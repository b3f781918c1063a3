import type { Decimal } from 'decimal.js';
import { DateTime } from 'luxon';

import { belowFreigrenze, deYear, INCOME_FREIGRENZE } from '../../accounting/gains/de-private-sales.ts';
import { ukTaxYear } from '../../accounting/gains/uk-day.ts';
import { plain, plus, ZERO } from '../../accounting/lots/lot-arithmetic.ts';
import { INCOME_HEAD_REVIEW, incomeHeads } from '../../accounting/treatments/income-heads.ts';
import type { ComputedReportDefinition, ReportParams, ReportRow } from '../report-definition.ts';
import { decimal, text } from '../report-definition.ts';
import {
  GAINS_WALK_STREAMS,
  gainsEvents,
  lotSettings,
  type OpenBook,
  openStoredBook,
  ukGainsEvents,
} from './gains-source.ts';
import { UNPRICED } from './realized-gains.ts';
import { filingYears } from './tax-year-rows.ts';

/** Unpriced first; then receipts whose head turns on facts the records do not show. */
const flagOf = (t: Totals): string | null => (t.unpriced > 0 ? UNPRICED : t.review > 0 ? INCOME_HEAD_REVIEW : null);

interface Totals {
  receipts: number;
  quantity: Decimal;
  /** Under uk / de: the receipts whose head is income (income-heads.ts); else all. */
  value: Decimal;
  unpriced: number;
  /** Receipts whose head is no income (a prize of chance, the copier's own trading result), valued. */
  notIncome: Decimal;
  /** Receipts whose head the rules leave to the facts (`review:income-head`). */
  review: number;
}

const empty = (): Totals => ({ receipts: 0, quantity: ZERO, value: ZERO, unpriced: 0, notIncome: ZERO, review: 0 });

/** The year an income counts in: UK tax year (`uk`), German calendar year (`de`), else the period zone's year. */
function yearOf(params: ReportParams, atMs: number): string {
  if (params.method === 'uk') return ukTaxYear(atMs);
  if (params.method === 'de') return String(deYear(atMs));
  return String(DateTime.fromMillis(atMs, { zone: params.period.tz }).year);
}

/**
 * The income report's summary: per year and coin the income received (rewards, interest, staking,
 * airdrops) valued at receipt, then per year the total. With `--method de` the total row applies
 * the Freigrenze of section 22 no. 3 EStG (EUR 256: a year's total below it is tax-free, reaching
 * it makes all of it taxable), decided only for a calendar year the period holds whole; with `--method uk` the years are UK tax years. Same walk as income.
 */
export function incomeSummaryReportWith(openBook: OpenBook): ComputedReportDefinition {
  return {
    name: 'income-summary',
    title: 'Income summary',
    description:
      'income received per year and coin, valued at receipt, with the year’s total (with --method de: the EUR 256 Freigrenze and the taxable amount; --method uk: UK tax years)',
    streams: GAINS_WALK_STREAMS,
    closedPositionsBeforeLedger: true,
    accepts: { coin: true, includePending: false, lots: true, valuation: true },
    columns: [
      text('level'),
      text('year'),
      text('coin'),
      decimal('receipts'),
      decimal('quantity'),
      decimal('value'),
      decimal('unpriced_receipts'),
      decimal('not_income_value'),
      decimal('review_receipts'),
      decimal('freigrenze'),
      text('below_freigrenze'),
      decimal('taxable_value'),
      text('method'),
      text('valuation_currency'),
    ],
    kind: 'computed',
    async *rows(params, db) {
      const settings = lotSettings(params);
      const de = params.method === 'de';
      const byYear = new Map<string, Map<string, Totals>>();
      // Income is valued at receipt whatever matches the disposals: under uk, the share-matching walk's
      // income, so that a uk export made with realized-gains reads the walk they share.
      const events =
        params.method === 'uk'
          ? ukGainsEvents(params, db, settings, openBook)
          : gainsEvents(params, db, settings, openBook);
      for await (const event of events) {
        if (event.kind !== 'income') continue;
        if (params.coin !== undefined && event.coin !== params.coin) continue;
        const year = yearOf(params, event.atMs);
        let coins = byYear.get(year);
        if (coins === undefined) byYear.set(year, (coins = new Map()));
        let t = coins.get(event.coin);
        if (t === undefined) coins.set(event.coin, (t = empty()));
        t.receipts++;
        t.quantity = plus(t.quantity, event.quantity);
        // Its head under the method's rules: income, or not (kept apart), and whether to review.
        const heads = incomeHeads(event);
        const head = params.method === 'uk' ? heads.uk : de ? heads.de : null;
        if (head?.review === true) t.review++;
        if (event.value === null) t.unpriced++;
        else if (head !== null && !head.taxable) t.notIncome = plus(t.notIncome, event.value);
        else t.value = plus(t.value, event.value);
      }
      const method = params.method ?? '';
      const whole = new Set(
        filingYears('de', params)
          .filter((y) => y.complete)
          .map((y) => y.label),
      );
      const cells = (level: string, year: string, coin: string, t: Totals, verdict: (string | null)[]) => [
        level,
        year,
        coin,
        String(t.receipts),
        level === 'coin' ? plain(t.quantity) : null,
        plain(t.value),
        String(t.unpriced),
        plain(t.notIncome),
        String(t.review),
        ...verdict,
        method,
        settings.currency,
      ];
      for (const year of [...byYear.keys()].sort()) {
        const coins = byYear.get(year)!;
        const total = empty();
        for (const coin of [...coins.keys()].sort()) {
          const t = coins.get(coin)!;
          yield { cells: cells('coin', year, coin, t, [null, null, null]), flag: flagOf(t) };
          total.receipts += t.receipts;
          total.unpriced += t.unpriced;
          total.value = plus(total.value, t.value);
          total.notIncome = plus(total.notIncome, t.notIncome);
          total.review += t.review;
        }
        const below = belowFreigrenze(total.value, INCOME_FREIGRENZE);
        // Part of a calendar year says nothing about the year's total: no Freigrenze decided (tax-years.ts).
        const verdict = !de
          ? [null, null, null]
          : whole.has(year)
            ? [String(INCOME_FREIGRENZE), below ? 'yes' : 'no', plain(below ? ZERO : total.value)]
            : [String(INCOME_FREIGRENZE), 'undecided', null];
        const summary: ReportRow = {
          cells: cells('total', year, '', total, verdict),
          flag: flagOf(total),
        };
        yield summary;
      }
    },
  };
}

export const incomeSummaryReport = incomeSummaryReportWith(openStoredBook);
