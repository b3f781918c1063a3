import path from 'node:path';

import { UnrecoverableError } from 'bullmq';

import { createPool } from '../../src/db/pg-connections.ts';
import { buildTaxYearPack } from '../../src/export/pack/build-tax-year-pack.ts';
import { parsePackYear } from '../../src/export/pack/pack-request.ts';
import type { ExportJob, ExportJobResult } from '../payloads/export-job.ts';
import type { PackJobData } from '../payloads/pack-job.ts';
import type { ExportProcessorDeps } from './export-processor.ts';

/**
 * Builds one tax-year pack (src/export/pack/build-tax-year-pack.ts) off the web process's event
 * loop: its two walks and the PDF's print take seconds. The result names the zip and its
 * `.pack.json` where an export names its CSV and manifest, so the job page offers the download.
 */
export async function writePack(deps: ExportProcessorDeps, job: ExportJob): Promise<ExportJobResult> {
  const data = job.data as PackJobData;
  const now = deps.now ?? (() => new Date());
  const year = parsePackYear(data.method, data.taxYear, now().getTime());
  const account = await deps.prisma.account.findUnique({
    where: { id: data.accountId },
    select: { id: true, name: true },
  });
  if (!account) throw new UnrecoverableError(`accountId: no account with id ${data.accountId}`);
  const pool = createPool({ connectionString: deps.databaseUrl, max: 1, application_name: 'ledgerline-pack' });
  try {
    const pack = await buildTaxYearPack({
      databaseUrl: deps.databaseUrl,
      exportDir: deps.exportDir,
      pool,
      account,
      year,
      valuation: deps.valuation,
      chromiumPath: deps.chromiumPath,
      now,
    });
    if (pack.manifest.partial)
      await job.log('partial: the data does not cover the whole tax year (see the files’ manifests)');
    return {
      csvFile: path.basename(pack.zipPath),
      manifestFile: path.basename(pack.manifestPath),
      rowCount: pack.manifest.files.length,
      sha256: pack.manifest.sha256,
      unmappedRows: 0,
    };
  } finally {
    await pool.end();
  }
}
