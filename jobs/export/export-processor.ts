import path from 'node:path';

import { UnrecoverableError } from 'bullmq';

import type { PrismaClient } from '../../src/db/prisma.ts';
import { LedgerlineError } from '../../src/errors/index.ts';
import { exportCovered } from '../../src/export/export-covered.ts';
import { parseExportRequest, type ValuationSettings } from '../../src/export/export-request.ts';
import { JOB } from '../definitions.ts';
import { type ExportJob, type ExportJobResult, exportRequestInput } from '../payloads/export-job.ts';
import { writePack } from './pack-processor.ts';

export interface ExportProcessorDeps {
  databaseUrl: string;
  exportDir: string;
  prisma: PrismaClient;
  /** config.valuation: the currency and price tolerance of realized gains and income. */
  valuation?: ValuationSettings;
  /** config.chromiumPath: the Chromium that prints a tax-year pack's PDF. */
  chromiumPath?: string;
  now?: () => Date;
}

/**
 * Writes one report into EXPORT_DIR. An error the same payload will hit again (bad parameters,
 * unknown account) fails the job at once; anything else (database down) is retried with the
 * queue's backoff. A retry simply writes the file again: the result is the same bytes.
 */
export function createExportProcessor(deps: ExportProcessorDeps) {
  return async (job: ExportJob): Promise<ExportJobResult> => {
    try {
      // The tax-year pack shares the queue (the page follows it like an export): pack-processor.ts.
      if (job.name === JOB.writePack) return await writePack(deps, job);
      const request = parseExportRequest(exportRequestInput(job.data));
      const account = await deps.prisma.account.findUnique({
        where: { id: request.accountId },
        select: { id: true, name: true },
      });
      if (!account) throw new UnrecoverableError(`accountId: no account with id ${request.accountId}`);
      // Jobs are not interactive: a period the history does not fully cover is written as a
      // `_PARTIAL` file whose manifest lists the gaps (the web page shows them), never passed off as whole.
      const { csvPath, manifestPath, manifest, gap } = await exportCovered({
        databaseUrl: deps.databaseUrl,
        exportDir: deps.exportDir,
        request,
        account,
        partial: 'mark',
        valuation: deps.valuation,
        now: deps.now,
      });
      if (gap) await job.log(`partial: ${gap}`);
      if (manifest.unmapped.rows > 0) {
        await job.log(
          `${manifest.unmapped.rows} rows with unmapped values: ${JSON.stringify(manifest.unmapped.values)}`,
        );
      }
      return {
        csvFile: path.basename(csvPath),
        manifestFile: path.basename(manifestPath),
        rowCount: manifest.rowCount,
        sha256: manifest.sha256,
        unmappedRows: manifest.unmapped.rows,
      };
    } catch (error) {
      if (error instanceof LedgerlineError && !error.retryable) throw new UnrecoverableError(error.toOneLine());
      throw error;
    }
  };
}
