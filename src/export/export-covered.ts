import { stat } from 'node:fs/promises';
import path from 'node:path';

import type { ExportCoverage } from './export-coverage.ts';
import { CoverageGapError, describeFirstGap, exportCoverage, historyStart, partialPath } from './export-coverage.ts';
import { exportCsvPath, exportFileName } from './export-files.ts';
import type { ExportRequest, ValuationSettings } from './export-request.ts';
import { type ExportedFile, exportToFile } from './export-to-file.ts';
import { reportFor } from './reports/index.ts';

/** What to do with a period the stored history does not fully cover. */
export type PartialPeriods =
  /** Refuse it (CoverageGapError, nothing written): the CLI's default. */
  | 'refuse'
  /** Write it as `*_PARTIAL.<ext>` with `partial: true` and the gaps in its manifest. */
  | 'mark';

export interface CoveredExport extends ExportedFile {
  coverage: ExportCoverage;
  /** The first gap, in words, when the file is partial. */
  gap: string | undefined;
}

/**
 * Every export, whoever asks for it (the CLI, the demo, the export jobs of the web page and the
 * monthly schedule), checks the period's coverage of the streams its report reads first, and a
 * file that does not hold the whole period says so: in its name and in its manifest. So a file in
 * EXPORT_DIR without `_PARTIAL` always holds the whole period, however it was made.
 */
export async function exportCovered(options: {
  databaseUrl: string;
  exportDir: string;
  request: ExportRequest;
  account: { id: string; name: string };
  partial: PartialPeriods;
  /**
   * The file to write (default: its name in EXPORT_DIR); `_PARTIAL` is inserted when partial. An
   * existing directory, or a path ending in a separator, gets the default file name inside it.
   */
  out?: string;
  valuation?: ValuationSettings;
  now?: () => Date;
}): Promise<CoveredExport> {
  const { request } = options;
  // The method's own definition (uk, de): its streams are what the written file reads.
  const report = reportFor(request.report, request.method);
  const from =
    report.coverage === 'history'
      ? await historyStart(options.databaseUrl, request.accountId, report.streams, request.period.start)
      : request.period.start;
  const coverage = await exportCoverage(
    options.databaseUrl,
    request.accountId,
    { start: from, end: request.period.end },
    report.streams,
  );
  const gap = describeFirstGap(coverage);
  if (gap && options.partial === 'refuse') throw new CoverageGapError(gap);
  const chosen =
    options.out === undefined
      ? exportCsvPath(options.exportDir, request)
      : (await isDirectory(options.out))
        ? path.join(options.out, exportFileName(request))
        : options.out;
  const written = await exportToFile({
    databaseUrl: options.databaseUrl,
    request,
    account: options.account,
    csvPath: gap ? partialPath(chosen) : chosen,
    coverage,
    valuation: options.valuation,
    now: options.now,
  });
  return { ...written, coverage, gap };
}

async function isDirectory(out: string): Promise<boolean> {
  if (out.endsWith(path.sep)) return true;
  return (await stat(out).catch(() => undefined))?.isDirectory() ?? false;
}
