import { stat } from 'node:fs/promises';
import path from 'node:path';

import type { Stream } from '../streams/registry.ts';
import { closedPositionsCoverage } from './closed-positions-span.ts';
import type { ExportCoverage } from './export-coverage.ts';
import {
  CoverageGapError,
  describeFirstGap,
  exportCoverage,
  partialPath,
  scopeHistoryStarts,
} from './export-coverage.ts';
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
  /** The fingerprint of the file's inputs, stated in its manifest (manifest.ts `inputs`). */
  inputs?: string | undefined;
  now?: () => Date;
}): Promise<CoveredExport> {
  const { request } = options;
  // The method's own definition (uk, de): its streams are what the written file reads.
  const report = reportFor(request.report, request.method);
  const history = report.coverage === 'history';
  const declared = history
    ? await historyCoverage(options.databaseUrl, request.accountId, report.streams, request.period)
    : await exportCoverage(options.databaseUrl, request.accountId, request.period, report.streams);
  const positions = report.closedPositionsBeforeLedger
    ? await closedPositionsCoverage(options.databaseUrl, request.accountId, request.period, history)
    : undefined;
  const coverage: ExportCoverage = positions
    ? { complete: declared.complete && positions.complete, streams: [...declared.streams, ...positions.streams] }
    : declared;
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
    inputs: options.inputs,
    now: options.now,
  });
  return { ...written, coverage, gap };
}

/**
 * A report that carries lots in: each stream scope's coverage from the start of its own stored
 * history (its first planned window, when earlier than the period) to the period's end. Per scope,
 * not from the earliest of all: the wallets' histories start apart (the futures ledger reaches back
 * only to its horizon, before which the walk reads closed positions; the margin ledger's windows
 * lie on a grid of their own), and so do a stream's scopes where its horizon narrows each scope's
 * first window when it runs (the futures ledger's product types, read seconds apart as the horizon
 * slides). What a scope never planned before its first window is not a gap of that scope.
 */
async function historyCoverage(
  databaseUrl: string,
  accountId: string,
  streams: readonly Stream[],
  period: { start: Date; end: Date },
): Promise<ExportCoverage> {
  const parts: ExportCoverage[] = [];
  for (const stream of streams) {
    const starts = await scopeHistoryStarts(databaseUrl, accountId, stream, period.start);
    for (const [scope, from] of starts) {
      parts.push(await exportCoverage(databaseUrl, accountId, { start: from, end: period.end }, [stream], scope));
    }
  }
  return { complete: parts.every((c) => c.complete), streams: parts.flatMap((c) => c.streams) };
}

async function isDirectory(out: string): Promise<boolean> {
  if (out.endsWith(path.sep)) return true;
  return (await stat(out).catch(() => undefined))?.isDirectory() ?? false;
}
