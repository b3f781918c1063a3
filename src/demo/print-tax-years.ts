import type { WrittenReport } from './demo-exports.ts';
import type { DeYearFigures, UkYearFigures } from './demo-tax-figures.ts';

const completeness = (complete: boolean) => `complete: ${String(complete)}`;

function ukLines(y: UkYearFigures): string[] {
  const net = BigInt(y.gains) - BigInt(y.losses);
  return [
    `    uk ${y.year.padEnd(8)} ${completeness(y.complete)}  disposals ${y.disposals}, proceeds ${y.proceeds}, ` +
      `allowable costs ${y.allowableCosts}, gains ${y.gains}, losses ${y.losses}, net ${net} GBP`,
    `                  not in them: ${y.unpriced} unpriced disposals (unknown-cost proceeds ${y.unknownCostProceeds}); ` +
      `in them at cost 0: beyond-holdings proceeds ${y.beyondProceeds}`,
  ];
}

/** A Freigrenze decision as the summaries state it (`below_freigrenze`), in words. */
const DECISION: Readonly<Record<string, string>> = {
  yes: 'under it, tax-free',
  no: 'reached, all taxable',
  undecided: 'undecided',
};

function deLines(y: DeYearFigures): string[] {
  const decision = (below: string) => DECISION[below] ?? below;
  return [
    `    de ${y.year.padEnd(8)} ${completeness(y.complete)}  §23 private sales net ${y.net} EUR ` +
      `(proceeds ${y.proceeds}, costs ${y.costs}), Freigrenze ${y.freigrenze}: ${decision(y.belowFreigrenze)}; ` +
      `§22 Nr. 3 income ${y.income} EUR, Freigrenze 256: ${decision(y.belowIncomeFreigrenze)}`,
    `                  not in them: ${y.unpriced} unpriced sales (unknown-cost proceeds ${y.unknownCostProceeds}); ` +
      `in them at cost 0: beyond-holdings proceeds ${y.beyondProceeds}`,
  ];
}

/** realized-gains' rows an accountant must look at, as its manifest counts them. */
function flaggedRows(r: WrittenReport): string {
  const n = (flag: string) => r.review[flag] ?? 0;
  return (
    `${r.method} unknown-cost ${n('unknown-cost')}, beyond holdings ${n('disposal-exceeds-holdings')}, ` +
    `withdrawals beyond holdings ${n('withdrawal-exceeds-holdings')}`
  );
}

/**
 * The closing note's tax block: per tax year the UK SA108 figures and the German Anlage SO ones, in
 * whole pounds and euros as the summaries' filing rows state them, each year saying whether the
 * export holds it whole (`complete: false`: part of the year, its figures decide nothing); then the
 * realized-gains rows flagged for an unknown cost or a part beyond the holdings.
 */
export function taxYearLines(reports: readonly WrittenReport[]): string[] {
  const lines: string[] = [];
  const periods = new Set<string>();
  for (const r of reports) {
    if (r.years === undefined) continue;
    periods.add(`${r.method} ${r.period.from}..${r.period.to} ${r.period.tz}`);
    if ('uk' in r.years) for (const y of r.years.uk) lines.push(...ukLines(y));
    else for (const y of r.years.de) lines.push(...deLines(y));
  }
  if (lines.length === 0) return [];
  const flagged = reports.filter((r) => r.report === 'realized-gains' && r.method !== undefined).map(flaggedRows);
  return [
    `  tax years       ${[...periods].join(', ')} (whole pounds / euros, as SA108 / Anlage SO take them)`,
    ...lines,
    `  flagged rows    realized-gains ${flagged.join('; ')}`,
  ];
}
