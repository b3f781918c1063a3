import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

import type { ExportCoverage } from './export-coverage.ts';
import type { ExportRequest } from './export-request.ts';
import { reportParams, type ValuationSettings } from './export-request.ts';
import { buildManifest, type ExportManifest, manifestPathFor, unpairedPathFor } from './manifest.ts';
import { reportByName } from './reports/index.ts';
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
 * manifest always describes a complete file.
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
  now?: () => Date;
}): Promise<ExportedFile> {
  const { request } = options;
  const report = reportByName(request.report);
  const csvPath = path.resolve(options.csvPath);
  const manifestPath = manifestPathFor(csvPath);
  const unpairedPath = unpairedPathFor(csvPath);
  await mkdir(path.dirname(csvPath), { recursive: true });
  const suffix = `.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  const csvTemp = csvPath + suffix;
  const manifestTemp = manifestPath + suffix;
  const unpairedTemp = unpairedPath + suffix;
  try {
    const result = await streamReport({
      databaseUrl: options.databaseUrl,
      report,
      params: reportParams(request, options.account.name, options.valuation),
      sink: createWriteStream(csvTemp),
      unpairedSink: createWriteStream(unpairedTemp),
    });
    const unpaired = result.unpairedLegs > 0;
    const manifest = buildManifest({
      request,
      title: report.title,
      dateZone: report.dateZone,
      columns: report.columns.map((c) => c.header),
      account: options.account,
      file: path.basename(csvPath),
      unpairedFile: unpaired ? path.basename(unpairedPath) : null,
      coverage: options.coverage ?? null,
      result,
      generatedAt: (options.now ?? (() => new Date()))(),
    });
    await writeFile(manifestTemp, `${JSON.stringify(manifest, null, 2)}\n`);
    // An older manifest must not describe the new CSV, even for the instant between the renames.
    await rm(manifestPath, { force: true });
    await rm(unpairedPath, { force: true });
    await rename(csvTemp, csvPath);
    if (unpaired) await rename(unpairedTemp, unpairedPath);
    await rename(manifestTemp, manifestPath);
    return { csvPath, manifestPath, unpairedPath: unpaired ? unpairedPath : null, manifest };
  } finally {
    await rm(csvTemp, { force: true });
    await rm(manifestTemp, { force: true });
    await rm(unpairedTemp, { force: true });
  }
}
