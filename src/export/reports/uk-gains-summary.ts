import type { Decimal } from 'decimal.js';

import { UK_FILING_ROUNDING_RULE, wholeUnits } from '../../accounting/gains/filing-rounding.ts';
import { taxYearOf } from '../../accounting/gains/tax-years.ts';
import type { UkMatch } from '../../accounting/gains/uk-matching.ts';
import { minus, plain, plus, ZERO } from '../../accounting/lots/lot-arithmetic.ts';
import type { ComputedReportDefinition, ReportRow } from '../report-definition.ts';
import { decimal, REVIEW_PREFIX, text } from '../report-definition.ts';
import { coinsAwayRows } from './coins-away-rows.ts';
import { futuresResultsByYear } from './futures-results.ts';
import { GAINS_WALK_STREAMS, lotSettings, type OpenBook, openStoredBook, ukGainsEvents } from './gains-source.ts';
import { UNPRICED } from './realized-gains.ts';
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

interface Totals {
  disposals: number;
  proceeds: Decimal;
  costs: Decimal;
  gains: Decimal;
  /** Positive: the sum of the disposals that made a loss, as HMRC's returns ask for it. */
  losses: Decimal;
  unpriced: number;
  /**
   * Unknown costs (in `unpriced`, not in the sums) and parts beyond the holdings (in the sums at
   * cost 0: their gain overstated by the missing cost), beside the sums (review-counts.ts).
   */
  review: ReviewCounts;
}

const empty = (): Totals => ({
  disposals: 0,
  proceeds: ZERO,
  costs: ZERO,
  gains: ZERO,
  losses: ZERO,
  unpriced: 0,
  review: emptyReviewCounts(),
});

/** One disposal (a token's disposals of one London day): its parts' sums. */
interface Disposal {
  key: string;
  taxYear: string;
  coin: string;
  proceeds: Decimal;
  costs: Decimal;
  unpriced: boolean;
  review: ReviewCounts;
}

function add(totals: Totals, d: Disposal): void {
  totals.disposals++;
  addReviewCounts(totals.review, d.review);
  if (d.unpriced) {
    totals.unpriced++;
    return;
  }
  totals.proceeds = plus(totals.proceeds, d.proceeds);
  totals.costs = plus(totals.costs, d.costs);
  const net = minus(d.proceeds, d.costs);
  if (net.isNegative()) totals.losses = minus(totals.losses, net);
  else totals.gains = plus(totals.gains, net);
}

function sum(into: Totals, t: Totals): void {
  into.disposals += t.disposals;
  into.unpriced += t.unpriced;
  addReviewCounts(into.review, t.review);
  into.proceeds = plus(into.proceeds, t.proceeds);
  into.costs = plus(into.costs, t.costs);
  into.gains = plus(into.gains, t.gains);
  into.losses = plus(into.losses, t.losses);
}

const COLUMNS = [
  text('level'),
  text('tax_year'),
  text('complete'),
  text('coin'),
  decimal('disposals'),
  decimal('proceeds'),
  decimal('allowable_costs'),
  decimal('gains'),
  decimal('losses'),
  decimal('net_gain'),
  decimal('unpriced_disposals'),
  ...REVIEW_COUNT_COLUMNS,
  ...FUTURES_COLUMNS,
  text('method'),
  text('currency'),
  text('note'),
];

function gainsRow(
  level: string,
  year: string,
  complete: boolean,
  coin: string,
  t: Totals,
  currency: string,
): ReportRow {
  return {
    cells: [
      level,
      year,
      String(complete),
      coin,
      String(t.disposals),
      plain(t.proceeds),
      plain(t.costs),
      plain(t.gains),
      plain(t.losses),
      plain(minus(t.gains, t.losses)),
      String(t.unpriced),
      ...reviewCells(t.review, level === 'coin'),
      ...futuresRowCells(null),
      'uk',
      currency,
      complete ? null : PART_YEAR_NOTE,
    ],
    flag: t.unpriced > 0 ? UNPRICED : partYearFlag(complete),
  };
}

/** Whether a year's sums count parts beyond the holdings (at cost 0). */
const hasBeyond = (t: Totals) => t.review.beyondQuantity.greaterThan(0);
const hasUnknownCost = (t: Totals) => t.review.unknownCostQuantity.greaterThan(0);

/**
 * The SA108 figures for cryptoassets of one tax year: number of disposals, disposal proceeds,
 * allowable costs (including purchase price), gains in the year before losses, losses in the year,
 * in whole pounds (filing-rounding.ts). What they leave out is said in `note`: unpriced disposals
 * (not in the sums; among them those of unknown cost), parts beyond the holdings (proceeds counted
 * with no cost), part of a year. The review counts are beside them, proceeds in whole pounds too.
 */
function sa108Row(year: string, complete: boolean, t: Totals, currency: string): ReportRow {
  const caveats = [
    ...(complete ? [] : [PART_YEAR_NOTE]),
    ...(t.unpriced > 0 ? [`${t.unpriced} unpriced disposals not in the figures`] : []),
    ...(hasUnknownCost(t)
      ? [`parts of unknown cost (proceeds ${plain(t.review.unknownCostProceeds)}) not in the figures`]
      : []),
    ...(hasBeyond(t)
      ? [`parts beyond the holdings (proceeds ${plain(t.review.beyondProceeds)}) counted at cost 0`]
      : []),
    UK_FILING_ROUNDING_RULE,
  ];
  return {
    cells: [
      'sa108',
      year,
      String(complete),
      '',
      String(t.disposals - t.unpriced),
      wholeUnits(t.proceeds, 'down'),
      wholeUnits(t.costs, 'up'),
      wholeUnits(t.gains, 'down'),
      wholeUnits(t.losses, 'up'),
      null,
      String(t.unpriced),
      null,
      wholeUnits(t.review.unknownCostProceeds, 'down'),
      null,
      wholeUnits(t.review.beyondProceeds, 'down'),
      null,
      ...futuresRowCells(null),
      'uk',
      currency,
      caveats.join('; '),
    ],
    flag:
      t.unpriced > 0
        ? UNPRICED
        : hasBeyond(t)
          ? `${REVIEW_PREFIX}sa108-includes-beyond-holdings`
          : partYearFlag(complete),
  };
}

/** Futures results are in the file and in no total: how they are taxed is the accountant's decision. */
const UK_FUTURES_NOTE =
  'futures results in the margin coin, from the futures ledger, and in pounds (*_value: each record at its instant, a daily rate on its London date); in no SA108 figure: whether they are capital gains (TCGA 1992 s143) or income (trading, miscellaneous) is the accountant’s call';

/**
 * realized-gains-summary under `--method uk`, one block per UK tax year the period touches (6 April
 * to 5 April, London: tax-years.ts): per token, then the year's total of the disposals (a token's
 * disposals of one day are one), proceeds, allowable costs, the sum of the gains and of the losses
 * (each disposal's net, as the Capital Gains summary pages ask for them) and the net, exact; then
 * the `sa108` row, those figures in whole pounds as the return's boxes take them; then the
 * year's `futures` results per margin coin from the futures ledger. Every row says whether the
 * period holds the whole tax year (`complete`); the manifest says whether all of them are whole.
 */
export function ukGainsSummaryReportWith(openBook: OpenBook): ComputedReportDefinition {
  return {
    name: 'realized-gains-summary',
    title: 'Realized gains summary (UK tax years)',
    description:
      'per UK tax year (6 April to 5 April, London) and token: disposals, proceeds, allowable costs, gains, losses and net gain under HMRC’s share matching, the year’s total and its SA108 figures in whole pounds, then the year’s futures results per margin coin',
    streams: GAINS_WALK_STREAMS,
    closedPositionsBeforeLedger: true,
    coverage: 'history',
    taxYears: 'uk',
    accepts: { coin: true, includePending: false, lots: true, valuation: true },
    columns: COLUMNS,
    kind: 'computed',
    async *rows(params, db) {
      const settings = lotSettings(params);
      const years = filingYears('uk', params);
      const byYear = new Map<string, Map<string, Totals>>(years.map((y) => [y.label, new Map()]));
      let current: Disposal | undefined;
      const totalsOf = (taxYear: string, coin: string): Totals => {
        const coins = byYear.get(taxYear)!;
        let totals = coins.get(coin);
        if (totals === undefined) coins.set(coin, (totals = empty()));
        return totals;
      };
      const close = () => {
        if (current === undefined) return;
        add(totalsOf(current.taxYear, current.coin), current);
        current = undefined;
      };
      for await (const event of ukGainsEvents(params, db, settings, openBook)) {
        if (event.kind !== 'disposal') continue;
        const m: UkMatch = event.match;
        if (params.coin !== undefined && m.coin !== params.coin) continue;
        if (m.rule === 'withdrawal-beyond-holdings') {
          // Nothing realized: counted beside the sums of its tax year and token only.
          const totals = totalsOf(taxYearOf('uk', m.disposedAtMs), m.coin);
          countPart(totals.review, { ...m, unknownCost: false, beyondHoldings: true, withdrawal: true });
          continue;
        }
        const key = `${m.disposedOn} ${m.coin}`;
        if (current?.key !== key) {
          close();
          current = {
            key,
            taxYear: taxYearOf('uk', m.disposedAtMs),
            coin: m.coin,
            proceeds: ZERO,
            costs: ZERO,
            unpriced: false,
            review: emptyReviewCounts(),
          };
        }
        countPart(current.review, {
          ...m,
          unknownCost: m.unknownCost === true,
          beyondHoldings: m.rule === 'beyond-holdings',
          withdrawal: false,
        });
        if (m.proceeds === null || m.cost === null) current.unpriced = true;
        else {
          current.proceeds = plus(current.proceeds, m.proceeds);
          current.costs = plus(current.costs, m.cost);
        }
      }
      close();
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
        const total = empty();
        for (const coin of [...coins.keys()].sort()) {
          const t = coins.get(coin)!;
          yield gainsRow('coin', year.label, year.complete, coin, t, settings.currency);
          sum(total, t);
        }
        yield gainsRow('total', year.label, year.complete, '', total, settings.currency);
        yield sa108Row(year.label, year.complete, total, settings.currency);
        for (const r of futures.get(year.label)!) {
          yield {
            cells: [
              'futures',
              year.label,
              String(year.complete),
              r.marginCoin,
              ...Array<null>(7 + REVIEW_COUNT_COLUMNS.length).fill(null),
              ...futuresRowCells(r),
              'uk',
              r.marginCoin,
              year.complete ? UK_FUTURES_NOTE : `${PART_YEAR_NOTE}; ${UK_FUTURES_NOTE}`,
            ],
            flag: futuresRowFlag(r, year.complete),
          };
        }
      }
      yield* coinsAwayRows(db, params, COLUMNS, settings);
    },
  };
}

export const ukGainsSummaryReport = ukGainsSummaryReportWith(openStoredBook);
