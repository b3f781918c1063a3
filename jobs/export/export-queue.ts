import { Queue, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ExportRequest } from '../../src/export/export-request.ts';
import { DEFAULT_PREFIX, JOB_OPTIONS, QUEUE } from '../definitions.ts';
import { EXPORT_JOB, exportJobData, exportJobId, type ExportJobData, type ExportJobResult } from './export-job.ts';

export type ExportQueue = Queue<ExportJobData, ExportJobResult>;
export type ExportJob = Job<ExportJobData, ExportJobResult>;

export function createExportQueue(connection: Redis, prefix = DEFAULT_PREFIX): ExportQueue {
  return new Queue<ExportJobData, ExportJobResult>(QUEUE.export, {
    connection,
    prefix,
    defaultJobOptions: JOB_OPTIONS[QUEUE.export],
  });
}

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
  const jobId = exportJobId(request);
  const existing = (await queue.getJob(jobId)) as ExportJob | undefined;
  if (existing) {
    const state = await existing.getState();
    const finished = state === 'completed' || state === 'failed';
    if (!finished || !options.replaceFinished) return existing;
    await existing.remove();
  }
  return queue.add(EXPORT_JOB, exportJobData(request), { jobId });
}
