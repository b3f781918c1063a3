import type { Job, Worker } from 'bullmq';
import type pg from 'pg';

import { failWindow } from '../../src/ingest/coverage/window-store.ts';
import type { Logger } from '../../src/logging/logger.ts';
import type { IngestWindowJob } from '../payloads/ingest-job.ts';

/**
 * A job that lost its worker more often than the worker's maxStalledCount is
 * failed by BullMQ without calling the processor, so the processor's own
 * failure path never marks its window. Without this the window would stay
 * "running" with no job behind it, and nothing would say why. Marked failed,
 * it is picked up again by the next sync or `ledgerline backfill`.
 */
export function markStalledWindowsFailed(worker: Worker<IngestWindowJob>, pool: pg.Pool, log: Logger): void {
  worker.on('failed', (job: Job<IngestWindowJob> | undefined, error: Error) => {
    // Only failures BullMQ decided on its own; the processor marks the others itself.
    if (!job?.deferredFailure) return;
    const { windowId, accountId, stream, scope } = job.data;
    const entity = { jobId: job.id, accountId, stream, scope: scope || undefined, windowId };
    const reason = `${error.message}: its worker stopped mid-window more than ${worker.opts.maxStalledCount} times`;
    failWindow(pool, windowId, reason, true).then(
      () => log.error(entity, `ingest window failed: ${reason}`),
      (dbError: unknown) => log.error({ ...entity, err: dbError }, 'ingest window failed; could not mark it failed'),
    );
  });
}
