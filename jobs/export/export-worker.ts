import { Worker } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';

import { QUEUE } from '../definitions.ts';
import type { ExportJobData, ExportJobResult } from '../payloads/export-job.ts';
import { createExportProcessor, type ExportProcessorDeps } from './export-processor.ts';

/**
 * The export queue's worker, on its own (the web page runs one beside it).
 * Exports are I/O- and database-bound and each holds one Postgres connection
 * for its cursor, so a small concurrency is enough.
 */
export function createExportWorker(options: {
  connection: Redis | Cluster;
  deps: ExportProcessorDeps;
  prefix: string;
  concurrency?: number;
}): Worker<ExportJobData, ExportJobResult> {
  return new Worker<ExportJobData, ExportJobResult>(QUEUE.export, createExportProcessor(options.deps), {
    connection: options.connection,
    prefix: options.prefix,
    concurrency: options.concurrency ?? 2,
  });
}
