import type { ExportRequest } from '../../src/export/export-request.ts';
import { packJobId, type PackYear } from '../../src/export/pack/pack-request.ts';
import { JOB, QUEUE } from '../definitions.ts';
import { ensureJob } from '../ensure-job.ts';
import { type ExportJob, exportJobData, exportJobId, type ExportQueue } from '../payloads/export-job.ts';
import { packJobData } from '../payloads/pack-job.ts';
import type { Runtime } from '../runtime.ts';

export type { ExportJob, ExportQueue };

/**
 * Enqueues an export under its deterministic id. A job of the same export that is waiting or
 * running is returned as it is. A finished one (completed or failed) is kept, unless
 * `replaceFinished`: then it is removed and the export runs again on today's data (what an
 * accountant asking again from the page means; the monthly schedule never replaces).
 */
export async function enqueueExport(
  queue: ExportQueue,
  request: ExportRequest,
  options: { replaceFinished?: boolean } = {},
): Promise<ExportJob> {
  const { job } = await ensureJob(queue, JOB.writeReport, exportJobId(request), exportJobData(request), {
    whenFinished: options.replaceFinished ? 'replace' : 'keep',
  });
  return job;
}

/**
 * Enqueues the tax-year pack of an account, method and year (build-tax-year-pack.ts) on the export
 * queue, so the page follows it like an export. Asked again once finished, it is built again on
 * today's data; while it waits or runs, asking again is the same job.
 */
export async function enqueuePack(queue: ExportQueue, accountId: string, year: PackYear): Promise<ExportJob> {
  const { job } = await ensureJob(queue, JOB.writePack, packJobId(accountId, year), packJobData(accountId, year), {
    whenFinished: 'replace',
  });
  return job;
}

/** The export queue of the process (the web page lists and adds its jobs). */
export function exportQueueOf(runtime: Pick<Runtime, 'queues'>): ExportQueue {
  return runtime.queues.get(QUEUE.export);
}
