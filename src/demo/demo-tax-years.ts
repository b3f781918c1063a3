import { DateTime } from 'luxon';

import type { RulesMethod } from '../accounting/gains/gains-method.ts';
import { TAX_YEAR_ZONE } from '../accounting/gains/tax-years.ts';
import { exportCoverage } from '../export/export-coverage.ts';
import { GAINS_WALK_STREAMS } from '../export/reports/gains-source.ts';

/**
 * The streams the filing summaries read (realized-gains-summary under uk and de: the gains walk's,
 * spot, futures and every wallet ledger): one period for all three files.
 */
const TAX_STREAMS = GAINS_WALK_STREAMS;

/** A period of whole local days in the tax years' own zone, as `parseExportRequest` takes it. */
export interface LocalPeriod {
  readonly from: string;
  readonly to: string;
  readonly tz: string;
}

/**
 * The demo's period under a jurisdiction's rules: the tax years its history touches (uk: 6 April to
 * 5 April, London; de: calendar years, Berlin; tax-years.ts), in their own zone, so that every year
 * the stored history holds whole is `complete: true` in the summaries. Clipped to what the stored
 * history covers: from the first whole local day on or after `coveredFromMs` (before it nothing was
 * read, and a file reaching there would be `_PARTIAL`), to the last whole local day ending by `dayMs`
 * (the anchor day's start, UTC: the history's last whole day). A year so clipped is `complete: false`
 * in every row of the summaries, and decides nothing: the demo prints it as such.
 */
export function taxYearsPeriod(method: RulesMethod, coveredFromMs: number, dayMs: number): LocalPeriod {
  const tz = TAX_YEAR_ZONE[method];
  const covered = DateTime.fromMillis(coveredFromMs, { zone: tz });
  // A year's first day is a whole local day: a covered start at a year's first instant keeps it whole.
  const from = covered.equals(covered.startOf('day')) ? covered : covered.startOf('day').plus({ days: 1 });
  const to = DateTime.fromMillis(dayMs, { zone: tz }).startOf('day').minus({ days: 1 });
  return { from: from.toISODate()!, to: to.toISODate()!, tz };
}

/**
 * Where the stored history the filing summaries read begins: the end of the leading gap (nothing
 * read before it) of the streams they read, over [fromMs, toMs). A gap later in the history is not
 * hidden by this: the files still say `_PARTIAL` and name it.
 */
export async function coveredFrom(
  databaseUrl: string,
  accountId: string,
  fromMs: number,
  toMs: number,
): Promise<number> {
  const coverage = await exportCoverage(
    databaseUrl,
    accountId,
    { start: new Date(fromMs), end: new Date(toMs) },
    TAX_STREAMS,
  );
  let start = fromMs;
  for (const stream of coverage.streams) {
    const leading = stream.gaps[0];
    if (leading !== undefined && Date.parse(leading.start) <= fromMs) start = Math.max(start, Date.parse(leading.end));
  }
  return start;
}
