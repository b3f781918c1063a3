import { readFile } from 'node:fs/promises';

import { parse } from 'csv-parse/sync';
import { Decimal } from 'decimal.js';

/** Wide enough never to round a sum or difference of report values. */
const Exact = Decimal.clone({ precision: 200 });

export interface RulesTotals {
  rows: number;
  proceeds: string;
  costs: string;
  gain: string;
  /** Rows left out of the sums: no proceeds or no cost (listed in the file, flagged). */
  unpriced: number;
  /** Rows whose gain is not exactly proceeds - cost (- selling_costs, de): must be 0. */
  mismatches: number;
}

/**
 * The totals of a realized-gains file written under --method uk or de, checking every row on the
 * way: its gain must be exactly proceeds minus its cost column (`allowable_cost` or `cost_basis`)
 * and, under de, its `selling_costs` (the Werbungskosten: the costs here include them).
 */
export async function rulesTotals(csvPath: string): Promise<RulesTotals> {
  const [header, ...rows] = parse(await readFile(csvPath, 'utf8')) as string[][];
  const col = (name: string) => header!.indexOf(name);
  const cost = col('allowable_cost') >= 0 ? col('allowable_cost') : col('cost_basis');
  const selling = col('selling_costs');
  let proceeds = new Exact(0);
  let costs = new Exact(0);
  let gain = new Exact(0);
  let unpriced = 0;
  let mismatches = 0;
  for (const row of rows) {
    const [p, basis, g] = [row[col('proceeds')], row[cost], row[col('gain')]];
    if (!p || !basis || !g) {
      unpriced++;
      continue;
    }
    const c = new Exact(basis).plus(selling >= 0 ? (row[selling] ?? '0') || '0' : '0');
    if (!new Exact(p).minus(c).eq(g)) mismatches++;
    proceeds = proceeds.plus(p);
    costs = costs.plus(c);
    gain = gain.plus(g);
  }
  return {
    rows: rows.length,
    proceeds: proceeds.toFixed(),
    costs: costs.toFixed(),
    gain: gain.toFixed(),
    unpriced,
    mismatches,
  };
}
