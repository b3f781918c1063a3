import type { DateTime } from 'luxon';

import type { AccountSummary } from '../accounts/account-service.ts';
import type { Config } from '../config/config.ts';
import { describeFirstGap, exportCoverage, partialPath } from '../export/export-coverage.ts';
import { exportCsvPath } from '../export/export-files.ts';
import { parseExportRequest } from '../export/export-request.ts';
import { exportToFile } from '../export/export-to-file.ts';
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
    const coverage = await exportCoverage(config.databaseUrl, account.id, request.period, report.streams);
    const gap = describeFirstGap(coverage);
    const chosen = exportCsvPath(config.exportDir, request);
    const csvPath = gap ? partialPath(chosen) : chosen;
    const { manifest } = await exportToFile({
      databaseUrl: config.databaseUrl,
      request,
      account,
      csvPath,
      coverage,
      valuation: config.valuation,
    });
    written.push({ report: report.name, rows: manifest.rowCount, unpairedLegs: manifest.unpairedLegs, gap, csvPath });
  }
  return written;
}
