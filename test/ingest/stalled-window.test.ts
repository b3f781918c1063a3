import { Worker } from 'bullmq';
import { describe, expect, it } from 'vitest';

import { QUEUE } from '../../jobs/definitions.ts';
import { startBackfill } from '../../src/app/services/backfill.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { getWindow } from '../../src/ingest/coverage/window-store.ts';
import { storedTransfers, truthTransfers } from '../helpers/ground-truth.ts';
import { usePipeline } from '../helpers/pipeline.ts';

const DAY = 86_400_000;
const file = usePipeline('stalled', { workers: false });

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a window whose job lost its worker too often', () => {
  it('is marked failed (not left running), and the next backfill resumes and completes it', async () => {
    const now = Date.now();
    const request = { account: 'demo', stream: 'transfers' as const, from: now - 60 * DAY, to: now, now };
    const started = await startBackfill(file.pipeline.runtime, request);
    expect(started.enqueued).toBeGreaterThan(1);

    // A worker takes a job and dies with it: its lock is never renewed or released.
    const dead = new Worker(QUEUE.ingest, null, {
      prefix: file.pipeline.runtime.prefix,
      connection: file.pipeline.runtime.connection(),
      lockDuration: 1_000,
      autorun: false,
    });
    const token = 'dead-worker';
    const taken = await dead.getNextJob(token);
    expect(taken).toBeDefined();
    const windowId = taken!.data.windowId as string;
    await file.pipeline.runtime.pool.query(`UPDATE sync_window SET status = 'running' WHERE id = $1`, [windowId]);
    await dead.close(true);

    // No takeover allowed: the first stall fails the job, without the processor ever running.
    // Live workers hold long locks: only the dead worker's 1-second lock lapses, however loaded the machine.
    file.pipeline.startWorkers({ lockDurationMs: 10_000, stalledIntervalMs: 300, maxStalledCount: 0 });
    const failed = await until('the window to be marked failed', async () => {
      const window = await getWindow(file.pipeline.runtime.pool, windowId);
      return window?.status === 'failed' ? window : undefined;
    });
    expect(failed.lastError).toMatch(
      /stalled more than allowable limit: its worker stopped mid-window more than 0 times/,
    );
    // Every other window completed.
    const ids = started.windows.map((w) => w.id);
    await until('the other windows', async () => {
      const [progress] = await windowProgress(file.pipeline.runtime.pool, ids);
      return progress!.done === progress!.total - 1 ? progress : undefined;
    });

    // The operator's rerun (or the nightly sync) enqueues the failed window again.
    const resumed = await startBackfill(file.pipeline.runtime, request);
    expect(resumed.enqueued).toBe(1);
    await until('every window done', async () => {
      const [progress] = await windowProgress(file.pipeline.runtime.pool, ids);
      return progress!.done === progress!.total ? progress : undefined;
    });
    expect(await storedTransfers(file.pipeline.runtime.pool, file.pipeline.accountId)).toEqual(
      truthTransfers(file.pipeline.sim, request.from),
    );
  }, 60_000);
});
