import { JOB, QUEUE } from '../../../jobs/definitions.ts';
import { ensureJob } from '../../../jobs/ensure-job.ts';
import { type ExportJob, exportJobData, exportJobId, type ExportQueue } from '../../../jobs/payloads/export-job.ts';
import type { Runtime } from '../../../jobs/runtime.ts';
import type { ExportRequest } from '../../export/export-request.ts';

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

/** The export queue of the process (the web page lists and adds its jobs). */
export function exportQueueOf(runtime: Runtime): ExportQueue {
  return runtime.queues.get(QUEUE.export);
}
