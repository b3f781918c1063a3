import type { DateTime } from 'luxon';

import type { AccountSummary } from '../accounts/account-service.ts';
import type { Config } from '../config/config.ts';
import { exportCovered } from '../export/export-covered.ts';
import { parseExportRequest } from '../export/export-request.ts';
import { REPORTS } from '../export/reports/index.ts';

export interface WrittenReport {
  report: string;
  rows: number;
  /** Trade legs the tax-tool files could not pair (0 on the simulator's data). */
  unpairedLegs: number;
  /** The first gap in the coverage of the period, when the file is partial. */
  gap: string | undefined;
  csvPath: string;
}

/** Every report over the demo's last twelve months (UTC), written into EXPORT_DIR with its manifest. */
export async function exportDemoReports(
  config: Config,
  account: AccountSummary,
  day: DateTime,
): Promise<WrittenReport[]> {
  const from = day.minus({ days: 365 }).toISODate()!;
  const to = day.minus({ days: 1 }).toISODate()!;
  const written: WrittenReport[] = [];
  for (const report of REPORTS) {
    const request = parseExportRequest({ report: report.name, accountId: account.id, from, to, tz: 'UTC' });
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
    written.push({ report: report.name, rows: manifest.rowCount, unpairedLegs: manifest.unpairedLegs, gap, csvPath });
  }
  return written;
}
