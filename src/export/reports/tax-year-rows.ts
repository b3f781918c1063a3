import { plain } from '../../accounting/lots/lot-arithmetic.ts';
import { REVIEW_PREFIX } from '../report-definition.ts';
import { futuresNet, type FuturesResult } from './futures-results.ts';

/** The note of every row of a tax year the period holds only part of: its figures are not the year's. */
export const PART_YEAR_NOTE = 'part of the tax year only: not the year’s figures, no Freigrenze or filing decision';

/** Flag of a row of part of a tax year, counted in the manifest's `review`. */
export const PART_YEAR = `${REVIEW_PREFIX}part-of-tax-year`;

export function partYearFlag(complete: boolean): string | null {
  return complete ? null : PART_YEAR;
}

/** realized_pnl, fees, funding, other, futures_net: a futures row's cells, empty on the other rows. */
export function futuresRowCells(r: FuturesResult | null): (string | null)[] {
  if (r === null) return [null, null, null, null, null];
  return [plain(r.realizedPnl), plain(r.fees), plain(r.funding), plain(r.other), plain(futuresNet(r))];
}
