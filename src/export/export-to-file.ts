import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

import type { ExportCoverage } from './export-coverage.ts';
import {
  ensureDirectory,
  finalNameOf,
  refuseNonRegularFiles,
  removeStaleTemporaryFiles,
  temporarySuffix,
} from './export-directory.ts';
import { ExportFileError, isFileSystemError } from './export-file-error.ts';
import type { ExportRequest } from './export-request.ts';
import { reportParams, type ValuationSettings } from './export-request.ts';
import { fileSink, type OpenFile, openNewFile, writeNewFile } from './file-sink.ts';
import { buildManifest, type ExportManifest, manifestPathFor, unpairedPathFor } from './manifest.ts';
import { DEFAULT_VALUATION_CURRENCY } from './reports/gains-source.ts';
import { reportFor } from './reports/index.ts';
import { streamReport } from './stream-report.ts';

export interface ExportedFile {
  csvPath: string;
  manifestPath: string;
  /** The side file of unpaired trade legs, when there are any. */
  unpairedPath: string | null;
  manifest: ExportManifest;
}

/**
 * Writes a report and its manifest. Both are written to temporary names and renamed into place
 * (the manifest last), so a crash never leaves a half-written CSV under the final name and a
 * manifest always describes a complete file. A file-system failure (disk full, no permission, a
 * directory in the way) is an ExportFileError naming the file, and leaves nothing under the final
 * names; temporary files a killed export left in the directory are removed after a day.
 */
export async function exportToFile(options: {
  databaseUrl: string;
  request: ExportRequest;
  account: { id: string; name: string };
  csvPath: string;
  /** The period's coverage (export-coverage.ts), written into the manifest; omitted: not checked. */
  coverage?: ExportCoverage;
  /** config.valuation, for the reports that value coins (defaults: USDT, 36 hours). */
  valuation?: ValuationSettings;
  /** The fingerprint of the file's inputs, stated in its manifest (manifest.ts `inputs`). */
  inputs?: string | undefined;
  now?: () => Date;
  /** How the files are opened: tests give files that fail like a full disk. */
  openFile?: OpenFile;
}): Promise<ExportedFile> {
  const { request } = options;
  const report = reportFor(request.report, request.method);
  const csvPath = path.resolve(options.csvPath);
  const manifestPath = manifestPathFor(csvPath);
  const unpairedPath = unpairedPathFor(csvPath);
  await ensureDirectory(path.dirname(csvPath));
  await refuseNonRegularFiles([csvPath, manifestPath, unpairedPath]);
  await removeStaleTemporaryFiles(path.dirname(csvPath));
  const suffix = temporarySuffix();
  const csvTemp = csvPath + suffix;
  const manifestTemp = manifestPath + suffix;
  const unpairedTemp = unpairedPath + suffix;
  const openFile = options.openFile ?? openNewFile;
  // The side file is written beside the pipeline: its failure is kept here (else it would go
  // unheard, a crash) and thrown once the report is read. Only a file's own failures are
  // ExportFileErrors (file-sink.ts): an error the pipeline forwards into its sink is not kept.
  let sinkFailure: ExportFileError | undefined;
  const sinks: Writable[] = [];
  const openSink = async (final: string, temp: string) => {
    const sink = fileSink(await openFile(temp), final);
    sink.on('error', (error) => {
      if (error instanceof ExportFileError) sinkFailure ??= error;
    });
    sinks.push(sink);
    return sink;
  };
  const placed: string[] = [];
  try {
    const sink = await openSink(csvPath, csvTemp);
    const unpairedSink = await openSink(unpairedPath, unpairedTemp);
    const result = await streamReport({
      databaseUrl: options.databaseUrl,
      report,
      params: reportParams(request, options.account.name, options.valuation, options.coverage?.complete),
      sink,
      unpairedSink,
    }).catch((error: unknown) => {
      throw sinkFailure ?? error;
    });
    if (sinkFailure) throw sinkFailure;
    const unpaired = result.unpairedLegs > 0;
    const manifest = buildManifest({
      request,
      title: report.title,
      dateZone: report.dateZone,
      columns: report.columns.map((c) => c.header),
      valuationCurrency: report.accepts.valuation
        ? (request.valuationCurrency ?? options.valuation?.currency ?? DEFAULT_VALUATION_CURRENCY)
        : undefined,
      account: options.account,
      taxYears: report.taxYears,
      file: path.basename(csvPath),
      unpairedFile: unpaired ? path.basename(unpairedPath) : null,
      coverage: options.coverage ?? null,
      result,
      inputs: options.inputs,
      generatedAt: (options.now ?? (() => new Date()))(),
    });
    await writeNewFile(openFile, manifestTemp, manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    // An older manifest must not describe the new CSV, even for the instant between the renames.
    await rm(manifestPath, { force: true });
    await rm(unpairedPath, { force: true });
    await rename(csvTemp, csvPath);
    placed.push(csvPath);
    if (unpaired) {
      await rename(unpairedTemp, unpairedPath);
      placed.push(unpairedPath);
    }
    await rename(manifestTemp, manifestPath);
    return { csvPath, manifestPath, unpairedPath: unpaired ? unpairedPath : null, manifest };
  } catch (error) {
    // A CSV without its manifest is no export: take back what was already put in place.
    for (const file of placed) await removeQuietly(file);
    throw asExportFileError(error);
  } finally {
    // A sink the report never reached (the database down) still holds its file open.
    for (const sink of sinks) await finished(sink.destroy()).catch(() => undefined);
    for (const file of [csvTemp, manifestTemp, unpairedTemp]) await removeQuietly(file);
  }
}

// Cleaning up must not hide the error that made it necessary; a temporary file left goes after a day.
async function removeQuietly(file: string): Promise<void> {
  await rm(file, { force: true }).catch(() => undefined);
}

// A file-system error names the temporary file (or, renaming, the final one as `dest`): name the final one.
function asExportFileError(error: unknown): unknown {
  if (!isFileSystemError(error)) return error;
  const dest = (error as { dest?: unknown }).dest;
  return new ExportFileError(
    error.syscall === 'mkdir' ? 'create the directory' : 'write',
    typeof dest === 'string' ? dest : finalNameOf(error.path),
    error,
  );
}
