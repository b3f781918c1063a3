import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';

import { exportBaseName, type ExportRequest, isUuid } from './export-request.ts';
import type { ExportManifest } from './manifest.ts';
import { reportByName } from './reports/index.ts';

/**
 * Where queued exports live: EXPORT_DIR/<account id>/<name from the parameters>.csv, with the
 * manifest beside it. A finished export IS its manifest: the listing reads manifests only, and
 * a manifest is written after its CSV is complete.
 */
export function exportCsvPath(exportDir: string, request: ExportRequest): string {
  return path.join(exportDir, request.accountId, exportFileName(request));
}

/** `<report>_<from>_<to>_<tz>.csv` (`.beancount` for the journal): the file's name wherever it is written. */
export function exportFileName(request: ExportRequest): string {
  const extension = reportByName(request.report).textFile?.extension ?? '.csv';
  return `${exportBaseName(request)}${extension}`;
}

export interface ListedExport {
  manifest: ExportManifest;
  csvFile: string;
  manifestFile: string;
}

/** The finished exports of one account, newest first. */
export async function listExports(exportDir: string, accountId: string): Promise<ListedExport[]> {
  if (!isUuid(accountId)) return [];
  const dir = path.join(exportDir, accountId);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const listed: ListedExport[] = [];
  for (const manifestFile of names.filter((n) => n.endsWith('.manifest.json'))) {
    try {
      const manifest = JSON.parse(await readFile(path.join(dir, manifestFile), 'utf8')) as ExportManifest;
      const csvFile = path.basename(manifest.file);
      await stat(path.join(dir, csvFile));
      listed.push({ manifest, csvFile, manifestFile });
    } catch {
      // A manifest being replaced or without its CSV is not a finished export.
    }
  }
  return listed.sort(
    (a, b) => b.manifest.generatedAt.localeCompare(a.manifest.generatedAt) || a.csvFile.localeCompare(b.csvFile, 'en'),
  );
}

const DOWNLOADABLE = /^[A-Za-z0-9][A-Za-z0-9._~+-]*\.(csv|beancount|manifest\.json|zip|pack\.json)$/;

/**
 * The path of a file an accountant may download, or undefined: only a CSV or manifest (or a
 * tax-year pack's zip and its `.pack.json`) directly
 * inside an account's export directory; names with separators or `..` never resolve.
 */
export function downloadPath(exportDir: string, accountId: string, file: string): string | undefined {
  if (!isUuid(accountId) || !DOWNLOADABLE.test(file) || file.includes('..')) return undefined;
  const root = path.resolve(exportDir, accountId);
  const resolved = path.resolve(root, file);
  return path.dirname(resolved) === root ? resolved : undefined;
}
