import type { DateTime } from 'luxon';
import pLimit from 'p-limit';

import type { AccountSummary } from '../accounts/account-service.ts';
import type { Config } from '../config/config.ts';
import { exportCovered } from '../export/export-covered.ts';
import { parseExportRequest } from '../export/export-request.ts';
import { REPORTS } from '../export/reports/index.ts';
import { type RulesTotals, rulesTotals } from './demo-rules-totals.ts';

export interface WrittenReport {
  report: string;
  /** uk or de: the report made under a jurisdiction's rules (and its currency). */
  method?: string;
  /** realized-gains under uk or de: its totals, every row checked (gain = proceeds - cost). */
  totals?: RulesTotals;
  rows: number;
  /** Trade legs the tax-tool files could not pair (0 on the simulator's data). */
  unpairedLegs: number;
  /** The first gap in the coverage of the period, when the file is partial. */
  gap: string | undefined;
  csvPath: string;
}

/** Files exported side by side: more would only queue for the machine's cores and Postgres's. */
const EXPORTS_AT_ONCE = 3;

/** Every report over the demo's last twelve months (UTC), written into EXPORT_DIR with its manifest. */
export async function exportDemoReports(
  config: Config,
  account: AccountSummary,
  day: DateTime,
): Promise<WrittenReport[]> {
  const from = day.minus({ days: 365 }).toISODate()!;
  const to = day.minus({ days: 1 }).toISODate()!;
  // Every report as installed, then the gains and income summaries under UK and German rules, valued
  // in pounds and euros through the imported (synthetic) fiat series.
  const runs: { report: string; method?: string }[] = REPORTS.map((r) => ({ report: r.name }));
  for (const method of ['uk', 'de']) {
    for (const report of ['realized-gains', 'realized-gains-summary', 'income-summary']) runs.push({ report, method });
  }
  // A few files at once: each is one database query streamed through Node's encoders, so side by
  // side they keep both Postgres and Node busy instead of taking turns (the order printed stays).
  // The rules' walks (uk, de) are the longest: started first, they do not end the batch alone.
  const limit = pLimit(EXPORTS_AT_ONCE);
  const written = new Map<(typeof runs)[number], Promise<WrittenReport>>();
  for (const run of [...runs.filter((r) => r.method), ...runs.filter((r) => !r.method)]) {
    written.set(run, exportOne(run));
  }
  return Promise.all(runs.map((run) => written.get(run)!));

  function exportOne({ report, method }: (typeof runs)[number]): Promise<WrittenReport> {
    return limit(async (): Promise<WrittenReport> => {
      const request = parseExportRequest({ report, accountId: account.id, from, to, tz: 'UTC', method });
      // The positions older than the exchange's 3-month horizon were never readable: those files are
      // exported as partial (what --allow-partial does), and say so.
      const { manifest, gap, csvPath } = await exportCovered({
        databaseUrl: config.databaseUrl,
        exportDir: config.exportDir,
        request,
        account,
        partial: 'mark',
        valuation: config.valuation,
      });
      const totals = method !== undefined && report === 'realized-gains' ? await rulesTotals(csvPath) : undefined;
      return { report, method, totals, rows: manifest.rowCount, unpairedLegs: manifest.unpairedLegs, gap, csvPath };
    });
  }
}
