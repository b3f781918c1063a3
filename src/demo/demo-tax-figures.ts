import { readFile } from 'node:fs/promises';

import { parse } from 'csv-parse/sync';

/**
 * The filing figures of one tax year, read back from the summaries the demo wrote (their `sa108` /
 * `anlage-so` rows: whole pounds / euros, rounded as the forms take them, filing-rounding.ts), so
 * that what the demo prints is what the files say.
 */
export interface UkYearFigures {
  readonly year: string;
  readonly complete: boolean;
  readonly disposals: string;
  readonly proceeds: string;
  readonly allowableCosts: string;
  readonly gains: string;
  readonly losses: string;
  /** Disposals left out of the figures (no proceeds or no cost: unknown costs among them). */
  readonly unpriced: string;
  readonly unknownCostProceeds: string;
  /** Proceeds of parts sold beyond the holdings, in the figures at cost 0. */
  readonly beyondProceeds: string;
}

export interface DeYearFigures {
  readonly year: string;
  readonly complete: boolean;
  /** Taxable private sales (section 23 EStG): Veräußerungspreis, Anschaffungskosten, net gain. */
  readonly proceeds: string;
  readonly costs: string;
  readonly net: string;
  /** Section 23 (3) sentence 5: `yes` (under it: nothing taxable), `no`, or `undecided`. */
  readonly freigrenze: string;
  readonly belowFreigrenze: string;
  /** Other income (section 22 no. 3 EStG) and its EUR 256 Freigrenze, from the income summary. */
  readonly income: string;
  readonly belowIncomeFreigrenze: string;
  readonly unpriced: string;
  readonly unknownCostProceeds: string;
  readonly beyondProceeds: string;
}

type Row = Record<string, string>;

async function rows(csvPath: string): Promise<Row[]> {
  const [header, ...cells] = parse(await readFile(csvPath, 'utf8'), { relax_column_count: true }) as string[][];
  return cells.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i] ?? ''])));
}

/** The `sa108` row of each UK tax year of a realized-gains-summary written under --method uk. */
export async function ukYearFigures(summaryCsv: string): Promise<UkYearFigures[]> {
  return (await rows(summaryCsv))
    .filter((r) => r.level === 'sa108')
    .map((r) => ({
      year: r.tax_year!,
      complete: r.complete === 'true',
      disposals: r.disposals!,
      proceeds: r.proceeds!,
      allowableCosts: r.allowable_costs!,
      gains: r.gains!,
      losses: r.losses!,
      unpriced: r.unpriced_disposals!,
      unknownCostProceeds: r.unknown_cost_proceeds!,
      beyondProceeds: r.beyond_holdings_proceeds!,
    }));
}

/**
 * Each calendar year of a realized-gains-summary written under --method de (its `anlage-so` row
 * and its `total` row's Freigrenze decision), with the income summary's verdict on section 22 no. 3.
 */
export async function deYearFigures(summaryCsv: string, incomeCsv: string): Promise<DeYearFigures[]> {
  const summary = await rows(summaryCsv);
  const income = new Map((await rows(incomeCsv)).filter((r) => r.level === 'total').map((r) => [r.year!, r]));
  const totals = new Map(summary.filter((r) => r.level === 'total').map((r) => [r.year!, r]));
  return summary
    .filter((r) => r.level === 'anlage-so')
    .map((r) => {
      const total = totals.get(r.year!)!;
      return {
        year: r.year!,
        complete: r.complete === 'true',
        proceeds: r.taxable_proceeds!,
        costs: r.taxable_cost!,
        net: r.taxable_gain!,
        freigrenze: total.freigrenze!,
        belowFreigrenze: total.below_freigrenze!,
        income: r.other_income!,
        belowIncomeFreigrenze: income.get(r.year!)?.below_freigrenze || 'no income',
        unpriced: r.unpriced_matches!,
        unknownCostProceeds: r.unknown_cost_proceeds!,
        beyondProceeds: r.beyond_holdings_proceeds!,
      };
    });
}
