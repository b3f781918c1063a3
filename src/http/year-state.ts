import type { RulesMethod } from '../accounting/gains/gains-method.ts';
import type { SummaryRow } from './filing-figures.ts';

/**
 * One word for a tax year's figures, the same on the page, in the summary CSV and in its manifest:
 * - `partial`: they cover part of the year only: the year is still running, the request held part
 *   of it, or records are missing (the summary's `complete` is false; the file is `_PARTIAL` and
 *   its manifest says `partial: true`);
 * - `undecided`: the whole year is read, but a figure depends on a value nobody knows yet (sales
 *   without a price for the day, coins sold whose cost nobody supplied, P2P sales without proceeds,
 *   futures records without a rate; for Germany, a Freigrenze left `undecided`);
 * - `complete`: the whole year, every record read, every value known.
 */
export type YearState = 'complete' | 'partial' | 'undecided';

/** What a year's state is derived from: the summary's own rows, and whether its file would be partial. */
export interface YearFacts {
  readonly method: RulesMethod;
  /** The year's `sa108` (uk) or `anlage-so` (de) row. */
  readonly filing: SummaryRow;
  /** The year's `total` row. */
  readonly total: SummaryRow;
  /** The year's `futures` rows. */
  readonly futures: readonly SummaryRow[];
  /**
   * The records the year's figures need are not all read: a summary of the year would be written
   * `_PARTIAL`, with `partial: true` in its manifest.
   */
  readonly recordsMissing: boolean;
}

/** What leaves a whole year's figures undecided, counted from the summary's cells. */
export interface Unknowns {
  /** Disposals (uk) or matches (de) without a price for the day: in no figure. */
  readonly unpriced: number;
  /** Proceeds of parts sold from coins whose cost nobody supplied (the total row's exact cell), '0' for none. */
  readonly unknownCostProceeds: string;
  /** Futures records no rate values (the futures rows' `unpriced_futures_records`, summed). */
  readonly unpricedFutures: number;
  /** de: the Freigrenze is not decided for a whole year (it depends on an unknown cost). */
  readonly freigrenzeUndecided: boolean;
}

const count = (value: string | undefined): number => (value === undefined || value === '' ? 0 : Number(value));
const isNonZero = (value: string | undefined) => value !== undefined && value !== '' && !/^-?0*(\.0*)?$/.test(value);

export function unknownsOf(facts: YearFacts): Unknowns {
  const unpricedColumn = facts.method === 'uk' ? 'unpriced_disposals' : 'unpriced_matches';
  return {
    unpriced: count(facts.total[unpricedColumn] ?? facts.filing[unpricedColumn]),
    unknownCostProceeds: isNonZero(facts.total.unknown_cost_proceeds) ? facts.total.unknown_cost_proceeds! : '0',
    unpricedFutures: facts.futures.reduce((sum, r) => sum + count(r.unpriced_futures_records), 0),
    freigrenzeUndecided: facts.method === 'de' && facts.total.below_freigrenze === 'undecided',
  };
}

/** The summary says the year is part of a year: its own `complete` cell (every row of a year carries the same). */
export const summarySaysPartial = (facts: YearFacts): boolean =>
  (facts.filing.complete ?? facts.total.complete) !== 'true';

export function yearState(facts: YearFacts): YearState {
  if (facts.recordsMissing || summarySaysPartial(facts)) return 'partial';
  const u = unknownsOf(facts);
  const undecided = u.unpriced > 0 || u.unknownCostProceeds !== '0' || u.unpricedFutures > 0 || u.freigrenzeUndecided;
  return undecided ? 'undecided' : 'complete';
}
