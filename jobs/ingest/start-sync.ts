import { Queue } from 'bullmq';
import type { StreamChoice } from '../../src/ingest/backfill-plan.ts';
import { ensureWindows } from '../../src/ingest/coverage/window-store.ts';
import { STREAMS } from '../../src/ingest/streams.ts';
import { planRetries } from '../../src/ingest/retry-plan.ts';
import { planIncrementalSync } from '../../src/ingest/sync-plan.ts';
import { QUEUE } from '../definitions.ts';
import type { Runtime } from '../runtime.ts';
import type { StartedBackfill } from './backfill.ts';
import { enqueueWindows } from './enqueue-windows.ts';
import type { IngestWindowJob } from './ingest-job.ts';

/**
 * Plans an incremental sync of an account (end of covered data, less the
 * lookback, to now), records its windows and enqueues them, together with
 * any earlier window of the account that never finished.
 */
export async function startSync(
  runtime: Runtime,
  request: { accountId: string; stream?: StreamChoice; now?: number },
): Promise<StartedBackfill> {
  const account = await runtime.accounts.getById(request.accountId);
  const streams = request.stream === undefined || request.stream === 'all' ? STREAMS : [request.stream];
  const plan = await planIncrementalSync(
    runtime.pool,
    account,
    streams,
    request.now ?? Date.now(),
    runtime.config.sync,
  );
  const now = request.now ?? Date.now();
  const retries = await planRetries(runtime.pool, account.id, streams, now);
  const windows = [...retries.windows, ...(await ensureWindows(runtime.pool, plan.windows))];
  const queue = new Queue<IngestWindowJob>(QUEUE.ingest, { prefix: runtime.prefix, connection: runtime.redis });
  try {
    const enqueued = await enqueueWindows(queue, runtime.pool, windows);
    return {
      windows,
      enqueued,
      alreadyDone: windows.filter((w) => w.status === 'done').length,
      notes: [...retries.notes, ...plan.notes],
    };
  } finally {
    await queue.close();
  }
}
