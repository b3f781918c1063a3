import type { Decimal } from 'decimal.js';

import { belowFreigrenze, privateSalesFreigrenze } from '../../accounting/gains/de-private-sales.ts';
import { DE_FILING_ROUNDING_RULE, wholeUnits } from '../../accounting/gains/filing-rounding.ts';
import { type TaxYear, taxYearOf } from '../../accounting/gains/tax-years.ts';
import { minus, plain, plus, ZERO } from '../../accounting/lots/lot-arithmetic.ts';
import { incomeHeads } from '../../accounting/treatments/income-heads.ts';
import type { ComputedReportDefinition, ReportRow } from '../report-definition.ts';
import { decimal, REVIEW_PREFIX, text } from '../report-definition.ts';
import { coinsAwayRows } from './coins-away-rows.ts';
import { deFigures, deTaxable } from './de-gains.ts';
import { futuresResultsByYear } from './futures-results.ts';
import { GAINS_WALK_STREAMS, gainsEvents, lotSettings, type OpenBook, openStoredBook } from './gains-source.ts';
import { reportedCostBasis, UNPRICED } from './realized-gains.ts';
import {
  addReviewCounts,
  countPart,
  emptyReviewCounts,
  REVIEW_COUNT_COLUMNS,
  reviewCells,
  type ReviewCounts,
} from './review-counts.ts';
import {
  filingYears,
  FUTURES_COLUMNS,
  futuresRowCells,
  futuresRowFlag,
  PART_YEAR_NOTE,
  partYearFlag,
} from './tax-year-rows.ts';

export interface DeYearTotals {
  /**
   * The taxable sales (held one year or less) as Anlage SO asks: Veräußerungspreis (gross),
   * Anschaffungskosten, Werbungskosten (the fees paying for the sales; EStG §23 (3) Satz 1).
   */
  taxableProceeds: Decimal;
  taxableCost: Decimal;
  taxableSellingCosts: Decimal;
  /** Net gain of the taxable sales. */
  taxable: Decimal;
  /** Net gain of the sales held more than one year (not taxable). */
  taxFree: Decimal;
  matches: number;
  unpriced: number;
  /**
   * Beside the sums (review-counts.ts): parts of unknown cost (in `unpriced`, not in the sums) and
   * parts sold beyond the holdings (in the sums at cost 0, so their gain, their proceeds, is the
   * most it can be). Both have no acquisition date, so both are taxable sales (deTaxable).
   */
  review: ReviewCounts;
  /** Other income (section 22 no. 3 EStG) valued at receipt; year rows only. */
  income: Decimal;
  unpricedIncome: number;
}

const empty = (): DeYearTotals => ({
  taxableProceeds: ZERO,
  taxableCost: ZERO,
  taxableSellingCosts: ZERO,
  taxable: ZERO,
  taxFree: ZERO,
  matches: 0,
  unpriced: 0,
  review: emptyReviewCounts(),
  income: ZERO,
  unpricedIncome: 0,
});

function sum(into: DeYearTotals, t: DeYearTotals): void {
  into.taxableProceeds = plus(into.taxableProceeds, t.taxableProceeds);
  into.taxableCost = plus(into.taxableCost, t.taxableCost);
  into.taxableSellingCosts = plus(into.taxableSellingCosts, t.taxableSellingCosts);
  into.taxable = plus(into.taxable, t.taxable);
  into.taxFree = plus(into.taxFree, t.taxFree);
  into.matches += t.matches;
  into.unpriced += t.unpriced;
  addReviewCounts(into.review, t.review);
}

const COLUMNS = [
  text('level'),
  text('year'),
  text('complete'),
  text('coin'),
  decimal('matches'),
  decimal('taxable_proceeds'),
  decimal('taxable_cost'),
  decimal('taxable_selling_costs'),
  decimal('taxable_gain'),
  decimal('tax_free_gain'),
  decimal('unpriced_matches'),
  ...REVIEW_COUNT_COLUMNS,
  decimal('freigrenze'),
  text('below_freigrenze'),
  decimal('taxable_amount'),
  decimal('other_income'),
  ...FUTURES_COLUMNS,
  text('method'),
  text('currency'),
  text('note'),
];

/** The Freigrenze of private sales (section 23 (3) sentence 5 EStG), decided only where the figure allows it. */
export interface FreigrenzeDecision {
  readonly below: 'yes' | 'no' | 'undecided';
  readonly taxableAmount: Decimal | null;
  readonly note: string | null;
  readonly flag: string | null;
}

export const FREIGRENZE_DEPENDS = `${REVIEW_PREFIX}freigrenze-depends-on-beyond-holdings`;
export const FREIGRENZE_DEPENDS_ON_UNKNOWN_COST = `${REVIEW_PREFIX}freigrenze-depends-on-unknown-cost`;

/**
 * Under the limit nothing is taxable; reaching it, all of it is (a Freigrenze, not an allowance).
 * Decided only for a whole calendar year (part of one says nothing about the year's total), and
 * not where the answer depends on a cost nobody knows yet (both kinds are taxable sales, having no
 * acquisition date):
 * - parts sold beyond the holdings count at cost 0, the most they can gain: a year under the limit
 *   with them is under it whatever their cost, a year reaching it may fall under it once it is known;
 * - parts of unknown cost are in no sum: their gain is at most their proceeds (cost 0) and may be
 *   any loss, so a year is under the limit whatever their cost only if it is under it with their
 *   proceeds added; a year reaching the limit without them may fall under it with them.
 */
export function decideFreigrenze(year: number, complete: boolean, t: DeYearTotals): FreigrenzeDecision {
  const limit = privateSalesFreigrenze(year);
  if (!complete) return { below: 'undecided', taxableAmount: null, note: PART_YEAR_NOTE, flag: null };
  const below = belowFreigrenze(t.taxable, limit);
  const beyond = t.review.beyondQuantity.greaterThan(0);
  const unknown = t.review.unknownCostQuantity.greaterThan(0);
  const atMost = plus(t.taxable, t.review.unknownCostProceeds);
  const unknownNote = `parts of unknown cost not in the taxable gain (proceeds ${plain(t.review.unknownCostProceeds)}: with cost 0 the gain would be ${plain(atMost)})`;
  if (!below && (beyond || unknown)) {
    const without = minus(t.taxable, t.review.beyondProceeds);
    const reasons = [
      ...(beyond
        ? [
            `counting parts beyond the holdings at cost 0 (gain ${plain(t.review.beyondProceeds)}; without them ${plain(without)})`,
          ]
        : []),
      ...(unknown ? [`with ${unknownNote}`] : []),
    ];
    return {
      below: 'undecided',
      taxableAmount: null,
      note: `reaches the Freigrenze ${reasons.join(' and ')}: decided once their cost is known`,
      flag: beyond ? FREIGRENZE_DEPENDS : FREIGRENZE_DEPENDS_ON_UNKNOWN_COST,
    };
  }
  if (below && unknown && !belowFreigrenze(atMost, limit)) {
    return {
      below: 'undecided',
      taxableAmount: null,
      note: `under the Freigrenze without ${unknownNote}: decided once their cost is known`,
      flag: FREIGRENZE_DEPENDS_ON_UNKNOWN_COST,
    };
  }
  return { below: below ? 'yes' : 'no', taxableAmount: below ? ZERO : t.taxable, note: null, flag: null };
}

function gainsCells(t: DeYearTotals, perCoin: boolean): (string | null)[] {
  return [
    String(t.matches),
    plain(t.taxableProceeds),
    plain(t.taxableCost),
    plain(t.taxableSellingCosts),
    plain(t.taxable),
    plain(t.taxFree),
    String(t.unpriced),
    ...reviewCells(t.review, perCoin),
  ];
}

function coinRow(year: TaxYear, coin: string, t: DeYearTotals, currency: string): ReportRow {
  return {
    cells: [
      'coin',
      year.label,
      String(year.complete),
      coin,
      ...gainsCells(t, true),
      null,
      null,
      null,
      null,
      ...futuresRowCells(null),
      'de',
      currency,
      year.complete ? null : PART_YEAR_NOTE,
    ],
    flag: t.unpriced > 0 ? UNPRICED : partYearFlag(year.complete),
  };
}

function totalRow(year: TaxYear, t: DeYearTotals, currency: string): ReportRow {
  const limit = privateSalesFreigrenze(Number(year.label));
  const decision = decideFreigrenze(Number(year.label), year.complete, t);
  return {
    cells: [
      'total',
      year.label,
      String(year.complete),
      '',
      ...gainsCells(t, false),
      String(limit),
      decision.below,
      decision.taxableAmount === null ? null : plain(decision.taxableAmount),
      plain(t.income),
      ...futuresRowCells(null),
      'de',
      currency,
      decision.note,
    ],
    flag: t.unpriced > 0 ? UNPRICED : (decision.flag ?? partYearFlag(year.complete)),
  };
}

/**
 * Anlage SO: the taxable private sales of the year (Veräußerungspreis, Anschaffungskosten, Gewinn
 * or Verlust; section 23 EStG) and the other income of section 22 no. 3 EStG, in whole euros
 * (filing-rounding.ts). The tax-free sales (held over a year) belong on no line.
 */
function anlageSoRow(year: TaxYear, t: DeYearTotals, currency: string): ReportRow {
  const caveats = [
    ...(year.complete ? [] : [PART_YEAR_NOTE]),
    ...(t.unpriced > 0 ? [`${t.unpriced} unpriced matches not in the figures`] : []),
    ...(t.unpricedIncome > 0 ? [`${t.unpricedIncome} unpriced receipts not in other_income`] : []),
    ...(t.review.unknownCostQuantity.greaterThan(0)
      ? [`parts of unknown cost (proceeds ${plain(t.review.unknownCostProceeds)}) not in the figures`]
      : []),
    ...(t.review.beyondQuantity.greaterThan(0)
      ? [`parts beyond the holdings (proceeds ${plain(t.review.beyondProceeds)}) counted at cost 0`]
      : []),
    DE_FILING_ROUNDING_RULE,
  ];
  return {
    cells: [
      'anlage-so',
      year.label,
      String(year.complete),
      '',
      String(t.matches - t.unpriced),
      wholeUnits(t.taxableProceeds, 'down'),
      wholeUnits(t.taxableCost, 'up'),
      wholeUnits(t.taxableSellingCosts, 'up'),
      wholeUnits(t.taxable, 'down'),
      null,
      String(t.unpriced),
      null,
      wholeUnits(t.review.unknownCostProceeds, 'down'),
      null,
      wholeUnits(t.review.beyondProceeds, 'down'),
      null,
      null,
      null,
      null,
      wholeUnits(t.income, 'down'),
      ...futuresRowCells(null),
      'de',
      currency,
      caveats.join('; '),
    ],
    flag:
      t.unpriced > 0 || t.unpricedIncome > 0
        ? UNPRICED
        : t.review.beyondQuantity.greaterThan(0)
          ? `${REVIEW_PREFIX}anlage-so-includes-beyond-holdings`
          : partYearFlag(year.complete),
  };
}

const DE_FUTURES_NOTE =
  'futures results in the margin coin, from the futures ledger, and in euros (*_value: each record at its instant, a daily rate on its Berlin date): Termingeschäfte, section 20 (2) sentence 1 no. 3 EStG (capital income, Anlage KAP), not private sales of section 23; their losses offset against all capital income (section 20 (6): the Termingeschäfte-only limit of its former sentences 5 and 6 was repealed by the Jahressteuergesetz 2024 for all open cases, section 52 (28)), decided by the accountant';

/**
 * realized-gains-summary under `--method de`, one block per calendar year (Berlin) the period
 * touches: per coin the taxable private sales' proceeds, cost and net gain and the tax-free sales'
 * net gain; the year's total with the Freigrenze of section 23 (3) EStG (EUR 600 up to 2023, EUR
 * 1,000 from 2024; decideFreigrenze) and the other income of section 22 no. 3; the `anlage-so` row
 * in whole euros; then the futures results per margin coin (section 20, kept apart). A negative
 * year is a loss for the accountant to carry (section 23 (3) sentences 7-8): shown, not decided.
 */
export function deGainsSummaryReportWith(openBook: OpenBook): ComputedReportDefinition {
  return {
    name: 'realized-gains-summary',
    title: 'Realized gains summary (German private sales)',
    description:
      'per calendar year (Berlin) and coin: taxable private sales (held one year or less) and tax-free ones; per year the Freigrenze (EUR 600 to 2023, EUR 1,000 from 2024), the Anlage SO figures in whole euros and the futures results (section 20) per margin coin',
    streams: GAINS_WALK_STREAMS,
    closedPositionsBeforeLedger: true,
    coverage: 'history',
    taxYears: 'de',
    accepts: { coin: true, includePending: false, lots: true, valuation: true },
    columns: COLUMNS,
    kind: 'computed',
    async *rows(params, db) {
      const settings = lotSettings(params);
      const years = filingYears('de', params);
      const byYear = new Map<string, Map<string, DeYearTotals>>(years.map((y) => [y.label, new Map()]));
      const income = new Map<string, DeYearTotals>(years.map((y) => [y.label, empty()]));
      for await (const event of gainsEvents(params, db, settings, openBook)) {
        if (event.kind === 'income') {
          if (params.coin !== undefined && event.coin !== params.coin) continue;
          const t = income.get(taxYearOf('de', event.atMs))!;
          if (event.value === null) t.unpricedIncome++;
          // Only what is §22 Nr. 3 income goes on that line (income-heads.ts): a prize of chance or
          // the copier's own trading result is no such income.
          else if (incomeHeads(event).de.taxable) t.income = plus(t.income, event.value);
          continue;
        }
        const match = event.match;
        if (params.coin !== undefined && match.coin !== params.coin) continue;
        const coins = byYear.get(taxYearOf('de', match.disposedAtMs))!;
        let totals = coins.get(match.coin);
        if (totals === undefined) coins.set(match.coin, (totals = empty()));
        countPart(totals.review, {
          ...match,
          unknownCost: match.unknownCost === true,
          withdrawal: match.withdrawal === true,
        });
        // A withdrawal beyond the holdings realizes nothing: counted beside the sums only.
        if (match.withdrawal === true) continue;
        totals.matches++;
        const cost = reportedCostBasis(match);
        if (match.proceeds === null || cost === null) {
          totals.unpriced++;
          continue;
        }
        // The walk's proceeds are net of the sale's fees: gross and the fees apart, as Anlage SO asks.
        const gain = minus(match.proceeds, cost);
        if (deTaxable(match)) {
          const { proceeds: gross, sellingCosts } = deFigures(match);
          totals.taxableProceeds = plus(totals.taxableProceeds, gross ?? match.proceeds);
          totals.taxableCost = plus(totals.taxableCost, cost);
          totals.taxableSellingCosts = plus(totals.taxableSellingCosts, sellingCosts);
          totals.taxable = plus(totals.taxable, gain);
        } else totals.taxFree = plus(totals.taxFree, gain);
      }
      // Valued by a book of its own: the walk's has been read to the period's end and closed.
      const book = await openBook(db, params.accountId, settings);
      let futures;
      try {
        futures = await futuresResultsByYear(db, params.accountId, years, params.period, params.coin, book);
      } finally {
        await book.close();
      }
      for (const year of years) {
        const coins = byYear.get(year.label)!;
        const total = income.get(year.label)!;
        for (const coin of [...coins.keys()].sort()) {
          const t = coins.get(coin)!;
          yield coinRow(year, coin, t, settings.currency);
          sum(total, t);
        }
        yield totalRow(year, total, settings.currency);
        yield anlageSoRow(year, total, settings.currency);
        for (const r of futures.get(year.label)!) {
          yield {
            cells: [
              'futures',
              year.label,
              String(year.complete),
              r.marginCoin,
              ...Array<null>(11 + REVIEW_COUNT_COLUMNS.length).fill(null),
              ...futuresRowCells(r),
              'de',
              r.marginCoin,
              year.complete ? DE_FUTURES_NOTE : `${PART_YEAR_NOTE}; ${DE_FUTURES_NOTE}`,
            ],
            flag: futuresRowFlag(r, year.complete),
          };
        }
      }
      yield* coinsAwayRows(db, params, COLUMNS, settings);
    },
  };
}

export const deGainsSummaryReport = deGainsSummaryReportWith(openStoredBook);
