import path from 'node:path';

import type { DemoAccountant } from './demo-accountant.ts';
import type { WrittenReport } from './demo-exports.ts';
import type { DeYearFigures, UkYearFigures } from './demo-tax-figures.ts';

const relative = (file: string) => path.relative(process.cwd(), file);

const ukFigures = (y: UkYearFigures) =>
  `disposals ${y.disposals}, proceeds ${y.proceeds}, allowable costs ${y.allowableCosts}, ` +
  `net ${BigInt(y.gains) - BigInt(y.losses)} GBP; unpriced ${y.unpriced} (unknown-cost proceeds ${y.unknownCostProceeds})`;

const deFigures = (y: DeYearFigures) =>
  `§23 net ${y.net} EUR (proceeds ${y.proceeds}, costs ${y.costs}), below Freigrenze: ${y.belowFreigrenze}; ` +
  `unpriced ${y.unpriced} (unknown-cost proceeds ${y.unknownCostProceeds})`;

/** Each tax year of a method's summary, by its label: `uk 2025-26` -> the year's figures in words. */
function yearFigures(reports: readonly WrittenReport[]): Map<string, string> {
  const years = new Map<string, string>();
  for (const r of reports) {
    if (r.years === undefined) continue;
    if ('uk' in r.years) for (const y of r.years.uk) years.set(`uk ${y.year}`, ukFigures(y));
    else for (const y of r.years.de) years.set(`de ${y.year}`, deFigures(y));
  }
  return years;
}

/** Disposals left unpriced (unknown cost or proceeds) over a summary's years, per method. */
function unpriced(reports: readonly WrittenReport[]): string {
  const counts: string[] = [];
  for (const r of reports) {
    if (r.years === undefined) continue;
    const ys: readonly (UkYearFigures | DeYearFigures)[] = 'uk' in r.years ? r.years.uk : r.years.de;
    counts.push(`${r.method} ${ys.reduce((n, y) => n + BigInt(y.unpriced), 0n)}`);
  }
  return counts.join(', ');
}

/** The summaries' count of undecided coins away, per method. */
function coinsAway(reports: readonly WrittenReport[]): string {
  return reports
    .filter((r) => r.years !== undefined)
    .map((r) => `${r.method} ${r.review['coins-away'] ?? 0} moves`)
    .join(', ');
}

/**
 * The closing note's before/after block: per tax year the filing figures after the accountant's
 * (SYNTHETIC) costs and proceeds, one line each (those as read, unknown costs and proceeds left out
 * and flagged, are the tax years block's just above: printed once); the unpriced disposals and what the accountants' page lists as lacking, before and
 * after; and where each file is.
 */
export function beforeAfterLines(
  before: readonly WrittenReport[],
  after: readonly WrittenReport[],
  supplied: DemoAccountant,
): string[] {
  const was = yearFigures(before);
  const now = yearFigures(after);
  const { lots, sells, lacking } = supplied;
  const lines = [
    `  accountant      SYNTHETIC costs for ${lots.covered} coins moved in (${lots.skipped} without a price: left unknown), ` +
      `proceeds for ${sells.covered} P2P sells (${sells.skipped} left), in GBP and EUR: ` +
      `${relative(supplied.costBasisFile)}, ${relative(supplied.proceedsFile)}`,
  ];
  // The years "before" are the tax years block's, printed just above: only the figures after are new.
  for (const year of was.keys())
    lines.push(`    ${year.padEnd(11)} after  ${now.get(year) ?? 'not in the after-export'}`);
  const file = (reports: readonly WrittenReport[]) =>
    reports
      .filter((r) => r.years !== undefined)
      .map((r) => relative(r.csvPath))
      .join(', ');
  lines.push(
    `  unknown cost    unpriced disposals before: ${unpriced(before)}; after: ${unpriced(after)}; ` +
      `lacking on the accountants' page: coins ${lacking.before.coins} -> ${lacking.after.coins}, ` +
      `P2P sells ${lacking.before.sells} -> ${lacking.after.sells}`,
    `  before files    ${file(before)} (as read: unknown costs flagged)`,
    `  after files     ${file(after)} (after the accountant's costs and proceeds, SYNTHETIC)`,
    `  coins away      moves to a strategy, Earn or a lock not back after COINS_AWAY_DAYS and undecided ` +
      `(review:coins-away in the summaries' manifests): ${coinsAway(before)} (ledgerline away-decision list)`,
    `  database        holds the figures as read: the SYNTHETIC imports were withdrawn (listed as withdrawn by demo) after the "after" summaries; ` +
      `to see "after" again: ledgerline cost-basis import --file ${relative(supplied.costBasisFile)} and ` +
      `ledgerline proceeds import --file ${relative(supplied.proceedsFile)}`,
  );
  return lines;
}
