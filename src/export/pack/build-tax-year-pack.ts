import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

import JSZip from 'jszip';
import type pg from 'pg';

import type { RulesMethod } from '../../accounting/gains/gains-method.ts';
import { exportCovered } from '../export-covered.ts';
import { parseExportRequest, type ValuationSettings } from '../export-request.ts';
import type { ExportManifest } from '../manifest.ts';
import { sharingGainsWalks } from '../reports/shared-gains-walks.ts';
import { packHtml, type PackSource } from './pack-html.ts';
import { packBaseName, type PackYear } from './pack-request.ts';
import { readYearSummary } from './pack-summary.ts';
import { openItems, suppliedFigures } from './pack-supplied.ts';
import { printPdf } from './print-pdf.ts';

/** One file inside the pack, as the pack's manifest lists it. */
export interface PackFile {
  readonly name: string;
  readonly bytes: number;
  readonly sha256: string;
}

/** Written beside the zip (`<pack>.pack.json`), last: a pack without it is not finished. */
export interface PackManifest {
  readonly kind: 'tax-year-pack';
  readonly account: { id: string; name: string };
  readonly method: RulesMethod;
  readonly taxYear: string;
  readonly from: string;
  readonly to: string;
  readonly tz: string;
  /** Either file's data does not cover the whole period (its manifest lists the gaps). */
  readonly partial: boolean;
  /** The summary's `complete`: the period holds the whole tax year. */
  readonly complete: boolean;
  readonly file: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly files: readonly PackFile[];
  readonly generatedAt: string;
}

export interface BuiltPack {
  readonly zipPath: string;
  readonly manifestPath: string;
  readonly manifest: PackManifest;
  /** The gains walks the two files took (1: they shared one). */
  readonly walks: number;
}

export interface TaxYearPackOptions {
  readonly databaseUrl: string;
  readonly exportDir: string;
  readonly pool: pg.Pool;
  readonly account: { id: string; name: string };
  readonly year: PackYear;
  readonly valuation?: ValuationSettings | undefined;
  readonly chromiumPath?: string | undefined;
  readonly now?: () => Date;
}

const sha256Of = async (file: string): Promise<string> => {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
};

async function packFile(file: string): Promise<PackFile> {
  return { name: path.basename(file), bytes: (await stat(file)).size, sha256: await sha256Of(file) };
}

/**
 * The tax-year pack of one method and year: the year's `realized-gains-summary` and
 * `realized-gains` files written by the export code (exportCovered: coverage checked, `_PARTIAL`
 * when short) into a fresh folder, a PDF laid out like the form they feed printed from the
 * summary file's own cells, and both in one zip with their manifests and the pack's file list.
 * The zip and its `.pack.json` are written under temporary names and renamed into place, the
 * manifest last, as exports are; the folder is removed whatever happens.
 */
export async function buildTaxYearPack(options: TaxYearPackOptions): Promise<BuiltPack> {
  const { year, account } = options;
  const now = options.now ?? (() => new Date());
  const accountDir = path.join(options.exportDir, account.id);
  const work = path.join(accountDir, `.pack-${randomUUID()}`);
  await mkdir(work, { recursive: true });
  // The temporary zip and manifest of this build only (another year's pack may be building beside it).
  const temporary: string[] = [];
  try {
    const write = async (report: 'realized-gains-summary' | 'realized-gains') => {
      const request = parseExportRequest({
        report,
        accountId: account.id,
        method: year.method,
        from: year.from,
        to: year.to,
        tz: year.tz,
      });
      return exportCovered({
        databaseUrl: options.databaseUrl,
        exportDir: options.exportDir,
        request,
        account,
        partial: 'mark',
        out: `${work}${path.sep}`,
        valuation: options.valuation,
        now,
      });
    };
    // Side by side on one walk of the history (shared-gains-walks.ts): both files read one snapshot,
    // so the gains rows and the summary's figures agree however the data moves meanwhile.
    const walks: string[] = [];
    const [summary, gains] = await sharingGainsWalks(
      async () => {
        const written = await Promise.allSettled([write('realized-gains-summary'), write('realized-gains')]);
        const failed = written.find((w) => w.status === 'rejected');
        if (failed) throw failed.reason;
        const [a, b] = written as Array<PromiseFulfilledResult<Awaited<ReturnType<typeof write>>>>;
        return [a!.value, b!.value] as const;
      },
      // Replayed: the second file reaching the walk after the first read it to its end (a short
      // history, a loaded machine) reads the same events, not a second snapshot.
      { onWalk: (key) => walks.push(key), replayFinished: true },
    );
    const source = (csvPath: string, manifest: ExportManifest): PackSource => ({
      file: path.basename(csvPath),
      manifest,
    });
    const summarySource = source(summary.csvPath, summary.manifest);
    const gainsSource = source(gains.csvPath, gains.manifest);
    const yearSummary = await readYearSummary(summary.csvPath, year.method, year.label);
    const partial = summary.manifest.partial || gains.manifest.partial;
    const base = packBaseName(year, partial);
    const generatedAt = now().toISOString();
    const html = packHtml({
      account,
      method: year.method,
      taxYear: year.label,
      from: year.from,
      to: year.to,
      tz: year.tz,
      summary: yearSummary,
      summarySource,
      gainsSource,
      open: await openItems(options.pool, account.id, year.method),
      supplied: await suppliedFigures(options.pool, account.id, year.method),
      generatedAt,
    });
    const pdfPath = path.join(work, `${base}.pdf`);
    await writeFile(pdfPath, await printPdf(html, options.chromiumPath));

    const inside = [pdfPath, summary.csvPath, summary.manifestPath, gains.csvPath, gains.manifestPath];
    if (gains.unpairedPath) inside.push(gains.unpairedPath);
    const files: PackFile[] = [];
    for (const file of inside) files.push(await packFile(file));
    const listing = { kind: 'tax-year-pack', account, method: year.method, taxYear: year.label, files };
    const zip = new JSZip();
    for (const file of inside) zip.file(path.basename(file), await readFile(file), { date: now() });
    zip.file('pack.json', `${JSON.stringify(listing, null, 2)}\n`, { date: now() });

    const zipPath = path.join(accountDir, `${base}.zip`);
    const manifestPath = path.join(accountDir, `${base}.pack.json`);
    const suffix = `.tmp-${randomUUID()}`;
    temporary.push(zipPath + suffix, manifestPath + suffix);
    await pipeline(
      zip.generateNodeStream({ type: 'nodebuffer', streamFiles: true, compression: 'DEFLATE' }),
      createWriteStream(zipPath + suffix),
    );
    const zipped = await packFile(zipPath + suffix);
    const manifest: PackManifest = {
      kind: 'tax-year-pack',
      account,
      method: year.method,
      taxYear: year.label,
      from: year.from,
      to: year.to,
      tz: year.tz,
      partial,
      complete: yearSummary.filing.complete === 'true',
      file: path.basename(zipPath),
      bytes: zipped.bytes,
      sha256: zipped.sha256,
      files,
      generatedAt,
    };
    await writeFile(manifestPath + suffix, `${JSON.stringify(manifest, null, 2)}\n`);
    // An older manifest must not describe the new zip; the pack of the other coverage goes too.
    const other = packBaseName(year, !partial);
    for (const stale of [
      manifestPath,
      path.join(accountDir, `${other}.pack.json`),
      path.join(accountDir, `${other}.zip`),
    ])
      await rm(stale, { force: true });
    await rename(zipPath + suffix, zipPath);
    await rename(manifestPath + suffix, manifestPath);
    return { zipPath, manifestPath, manifest, walks: walks.length };
  } finally {
    await rm(work, { recursive: true, force: true });
    for (const file of temporary) await rm(file, { force: true }).catch(() => undefined);
  }
}
