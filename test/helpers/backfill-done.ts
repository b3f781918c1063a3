import type { AppRuntime } from '../../src/app/app-runtime.ts';
import { type BackfillRequest, startBackfill } from '../../src/app/services/backfill.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';

/**
 * Starts a backfill through the queue (some worker must be taking its jobs) and waits until every
 * window it planned is done. A failed window ends the wait at once with the windows' progress: a
 * test that needs the history whole must not read a part of it, nor wait out its deadline first.
 */
export async function backfillUntilDone(
  runtime: AppRuntime,
  request: BackfillRequest,
  timeoutMs: number,
): Promise<void> {
  const started = await startBackfill(runtime, request);
  const ids = started.windows.map((w) => w.id);
  for (const deadline = Date.now() + timeoutMs; ;) {
    const progress = await windowProgress(runtime.pool, ids);
    if (progress.some((p) => p.failed > 0)) throw new Error(`backfill failed: ${JSON.stringify(progress)}`);
    if (progress.every((p) => p.done === p.total)) return;
    if (Date.now() > deadline) throw new Error(`backfill not finished: ${JSON.stringify(progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
