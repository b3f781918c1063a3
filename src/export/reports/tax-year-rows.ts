import { type TaxYear, taxYearsOf } from '../../accounting/gains/tax-years.ts';
import { plain } from '../../accounting/lots/lot-arithmetic.ts';
import { decimal, type ReportColumn, type ReportParams, REVIEW_PREFIX } from '../report-definition.ts';
import { futuresNet, type FuturesResult } from './futures-results.ts';
import { futuresValueNet } from './futures-values.ts';
import { UNPRICED } from './realized-gains.ts';

/** The note of every row of a tax year the period holds only part of: its figures are not the year's. */
export const PART_YEAR_NOTE = 'part of the tax year only: not the year’s figures, no Freigrenze or filing decision';

/**
 * The tax years of a filing summary's period, each whole only when the period holds all of it and
 * the stored history covers the period (a `_PARTIAL` export: every year is part of one).
 */
export function filingYears(method: 'uk' | 'de', params: ReportParams): TaxYear[] {
  const years = taxYearsOf(method, params.period.start.getTime(), params.period.end.getTime());
  return params.coverageComplete === false ? years.map((y) => ({ ...y, complete: false })) : years;
}

/** Flag of a row of part of a tax year, counted in the manifest's `review`. */
export const PART_YEAR = `${REVIEW_PREFIX}part-of-tax-year`;

export function partYearFlag(complete: boolean): string | null {
  return complete ? null : PART_YEAR;
}

/**
 * The futures section's columns of both filing summaries: the results in the margin coin (the
 * row's `currency`), then the same in the summary's currency (GBP, EUR: `*_value`, each record
 * valued at its instant, futures-values.ts) and the records no price values.
 */
export const FUTURES_COLUMNS: readonly ReportColumn[] = [
  decimal('realized_pnl'),
  decimal('fees'),
  decimal('funding'),
  decimal('other'),
  decimal('futures_net'),
  decimal('realized_pnl_value'),
  decimal('fees_value'),
  decimal('funding_value'),
  decimal('other_value'),
  decimal('futures_net_value'),
  decimal('unpriced_futures_records'),
];

/** A futures row's cells of FUTURES_COLUMNS, empty on the other rows (and the values without a book). */
export function futuresRowCells(r: FuturesResult | null): (string | null)[] {
  if (r === null) return Array<null>(FUTURES_COLUMNS.length).fill(null);
  const v = r.value;
  return [
    plain(r.realizedPnl),
    plain(r.fees),
    plain(r.funding),
    plain(r.other),
    plain(futuresNet(r)),
    ...(v === undefined
      ? [null, null, null, null, null, null]
      : [
          plain(v.realizedPnl),
          plain(v.fees),
          plain(v.funding),
          plain(v.other),
          plain(futuresValueNet(v)),
          String(v.unpriced),
        ]),
  ];
}

/** A futures row's flag: a type nobody mapped first, then records without a price, then part of a year. */
export function futuresRowFlag(r: FuturesResult, complete: boolean): string | null {
  if (r.unmapped > 0) return `${REVIEW_PREFIX}futures-unmapped-type`;
  if ((r.value?.unpriced ?? 0) > 0) return UNPRICED;
  return partYearFlag(complete);
}
