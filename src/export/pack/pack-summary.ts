import { readFile } from 'node:fs/promises';

import { parse } from 'csv-parse/sync';

import type { RulesMethod } from '../../accounting/gains/gains-method.ts';

/** One row of the summary CSV, its cells by header (the file's exact text). */
export type SummaryCells = Readonly<Record<string, string>>;

/** The summary CSV's rows of one tax year, by level: what the pack prints, read back from the file. */
export interface YearSummary {
  readonly filing: SummaryCells;
  readonly total: SummaryCells;
  readonly coins: readonly SummaryCells[];
  readonly futures: readonly SummaryCells[];
}

const FILING_LEVEL: Readonly<Record<RulesMethod, string>> = { uk: 'sa108', de: 'anlage-so' };
const YEAR_COLUMN: Readonly<Record<RulesMethod, string>> = { uk: 'tax_year', de: 'year' };

/**
 * The year's rows of a written `realized-gains-summary` CSV. The pack prints the file's own cells,
 * so the printed figures are the file's by construction (no second calculation).
 */
export async function readYearSummary(csvPath: string, method: RulesMethod, taxYear: string): Promise<YearSummary> {
  const rows = parse(await readFile(csvPath, 'utf8'), { columns: true, skip_empty_lines: true }) as SummaryCells[];
  const year = rows.filter((r) => r[YEAR_COLUMN[method]] === taxYear);
  return {
    filing: year.find((r) => r.level === FILING_LEVEL[method]) ?? {},
    total: year.find((r) => r.level === 'total') ?? {},
    coins: year.filter((r) => r.level === 'coin'),
    futures: year.filter((r) => r.level === 'futures'),
  };
}
