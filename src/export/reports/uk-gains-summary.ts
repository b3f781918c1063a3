import type { Decimal } from 'decimal.js';

import { UK_FILING_ROUNDING_RULE, wholeUnits } from '../../accounting/gains/filing-rounding.ts';
import { taxYearOf, taxYearsOf } from '../../accounting/gains/tax-years.ts';
import type { UkMatch } from '../../accounting/gains/uk-matching.ts';
import { minus, plain, plus, ZERO } from '../../accounting/lots/lot-arithmetic.ts';
import type { ComputedReportDefinition, ReportRow } from '../report-definition.ts';
import { decimal, REVIEW_PREFIX, text } from '../report-definition.ts';
import { futuresResultsByYear } from './futures-results.ts';
import { lotSettings, type OpenBook, openStoredBook, ukGainsEvents } from './gains-source.ts';
import { UNPRICED } from './realized-gains.ts';
import { futuresRowCells, PART_YEAR_NOTE, partYearFlag } from './tax-year-rows.ts';

interface Totals {
  disposals: number;
  proceeds: Decimal;
  costs: Decimal;
  gains: Decimal;
  /** Positive: the sum of the disposals that made a loss, as HMRC's returns ask for it. */
  losses: Decimal;
  unpriced: number;
  /** Disposals with a part beyond the holdings (cost 0: their gain is overstated by the missing cost). */
  beyond: number;
  beyondProceeds: Decimal;
}

const empty = (): Totals => ({
  disposals: 0,
  proceeds: ZERO,
  costs: ZERO,
  gains: ZERO,
  losses: ZERO,
  unpriced: 0,
  beyond: 0,
  beyondProceeds: ZERO,
});

/** One disposal (a token's disposals of one London day): its parts' sums. */
interface Disposal {
  key: string;
  taxYear: string;
  coin: string;
  proceeds: Decimal;
  costs: Decimal;
  unpriced: boolean;
  beyond: boolean;
  beyondProceeds: Decimal;
}

function add(totals: Totals, d: Disposal): void {
  totals.disposals++;
  if (d.beyond) {
    totals.beyond++;
    totals.beyondProceeds = plus(totals.beyondProceeds, d.beyondProceeds);
  }
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
  into.beyond += t.beyond;
  into.proceeds = plus(into.proceeds, t.proceeds);
  into.costs = plus(into.costs, t.costs);
  into.gains = plus(into.gains, t.gains);
  into.losses = plus(into.losses, t.losses);
  into.beyondProceeds = plus(into.beyondProceeds, t.beyondProceeds);
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
  decimal('beyond_holdings_disposals'),
  decimal('beyond_holdings_proceeds'),
  decimal('realized_pnl'),
  decimal('fees'),
  decimal('funding'),
  decimal('other'),
  decimal('futures_net'),
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
      String(t.beyond),
      plain(t.beyondProceeds),
      ...futuresRowCells(null),
      'uk',
      currency,
      complete ? null : PART_YEAR_NOTE,
    ],
    flag: t.unpriced > 0 ? UNPRICED : partYearFlag(complete),
  };
}

/**
 * The SA108 figures for cryptoassets of one tax year: number of disposals, disposal proceeds,
 * allowable costs (including purchase price), gains in the year before losses, losses in the year,
 * in whole pounds (filing-rounding.ts). What they leave out is said in `note`: unpriced disposals
 * (not in the sums), disposals beyond the holdings (proceeds counted with no cost), part of a year.
 */
function sa108Row(year: string, complete: boolean, t: Totals, currency: string): ReportRow {
  const caveats = [
    ...(complete ? [] : [PART_YEAR_NOTE]),
    ...(t.unpriced > 0 ? [`${t.unpriced} unpriced disposals not in the figures`] : []),
    ...(t.beyond > 0 ? [`${t.beyond} disposals beyond the holdings counted at cost 0`] : []),
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
      String(t.beyond),
      wholeUnits(t.beyondProceeds, 'down'),
      ...futuresRowCells(null),
      'uk',
      currency,
      caveats.join('; '),
    ],
    flag:
      t.unpriced > 0
        ? UNPRICED
        : t.beyond > 0
          ? `${REVIEW_PREFIX}sa108-includes-beyond-holdings`
          : partYearFlag(complete),
  };
}

/** Futures results are in the file and in no total: how they are taxed is the accountant's decision. */
const UK_FUTURES_NOTE =
  'futures results in the margin coin, from the futures ledger; in no SA108 figure: whether they are capital gains (TCGA 1992 s143) or income (trading, miscellaneous) is the accountant’s call';

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
    streams: ['spot', 'futures-ledger'],
    coverage: 'history',
    taxYears: 'uk',
    accepts: { coin: true, includePending: false, lots: true, valuation: true },
    columns: COLUMNS,
    kind: 'computed',
    async *rows(params, db) {
      const settings = lotSettings(params);
      const years = taxYearsOf('uk', params.period.start.getTime(), params.period.end.getTime());
      const byYear = new Map<string, Map<string, Totals>>(years.map((y) => [y.label, new Map()]));
      let current: Disposal | undefined;
      const close = () => {
        if (current === undefined) return;
        const coins = byYear.get(current.taxYear)!;
        let totals = coins.get(current.coin);
        if (totals === undefined) coins.set(current.coin, (totals = empty()));
        add(totals, current);
        current = undefined;
      };
      for await (const event of ukGainsEvents(params, db, settings, openBook)) {
        if (event.kind !== 'disposal') continue;
        const m: UkMatch = event.match;
        if (params.coin !== undefined && m.coin !== params.coin) continue;
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
            beyond: false,
            beyondProceeds: ZERO,
          };
        }
        if (m.rule === 'beyond-holdings') {
          current.beyond = true;
          if (m.proceeds !== null) current.beyondProceeds = plus(current.beyondProceeds, m.proceeds);
        }
        if (m.proceeds === null || m.cost === null) current.unpriced = true;
        else {
          current.proceeds = plus(current.proceeds, m.proceeds);
          current.costs = plus(current.costs, m.cost);
        }
      }
      close();
      const futures = await futuresResultsByYear(db, params.accountId, years, params.period, params.coin);
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
              ...Array<null>(9).fill(null),
              ...futuresRowCells(r),
              'uk',
              r.marginCoin,
              year.complete ? UK_FUTURES_NOTE : `${PART_YEAR_NOTE}; ${UK_FUTURES_NOTE}`,
            ],
            flag: r.unmapped > 0 ? `${REVIEW_PREFIX}futures-unmapped-type` : partYearFlag(year.complete),
          };
        }
      }
    },
  };
}

export const ukGainsSummaryReport = ukGainsSummaryReportWith(openStoredBook);
