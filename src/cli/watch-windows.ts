import type { AppRuntime } from '../app/app-runtime.ts';
import type { StartedBackfill } from '../app/services/backfill.ts';
import { ingestWorkerCount } from '../app/services/backfill.ts';
import { requeueIdleWindows } from '../app/services/heal.ts';
import { recordFailedRun, recordWindowsRun, type RunOrigin } from '../app/services/record-run.ts';
import { PermanentError } from '../errors/index.ts';
import { failedWindows, type StreamProgress, windowProgress } from '../ingest/coverage/window-progress.ts';
import { formatInstant } from '../ingest/time-arguments.ts';
import { WindowProgressView } from './progress/window-progress-view.ts';

export class WindowsFailedError extends PermanentError {
  constructor(count: number) {
    super(`${count} window(s) failed (listed above); fix the cause and run the same command again to resume them`, {
      code: 'WINDOWS_FAILED',
    });
  }
}

/** Complete windows that have no row in the plan (wholly covered grid windows are not planned at all). */
function alreadyCoveredOnly(started: StartedBackfill): number {
  return started.alreadyDone - started.windows.filter((w) => w.status === 'done').length;
}

/**
 * Reports what was planned, then shows progress until every window is done
 * or failed; names each failed window with its error and throws when any did.
 */
export async function watchWindows(
  runtime: AppRuntime,
  started: StartedBackfill,
  options: {
    title: string;
    inProcessWorker: boolean;
    /** The account and the command: the run is recorded in `run`, as the worker records its syncs. */
    record?: { accountId: string; by: RunOrigin };
  },
): Promise<StreamProgress[]> {
  const startedAt = new Date();
  for (const note of started.notes) console.log(`note: ${note}`);
  console.log(
    `${options.title}: ${started.windows.length + alreadyCoveredOnly(started)} windows, ${started.alreadyDone} already complete, ${started.enqueued} enqueued`,
  );
  if (!options.inProcessWorker && started.enqueued > 0 && (await ingestWorkerCount(runtime)) === 0) {
    console.log('warning: no worker is running; start one with `ledgerline worker` (or pass --with-worker)');
  }
  const ids = started.windows.map((w) => w.id);
  const view = new WindowProgressView(runtime.config);
  const healEveryMs = runtime.config.workerHealIntervalMs;
  let lastHeal = Date.now();
  let requeued = 0;
  const follow = async (): Promise<StreamProgress[]> => {
    try {
      for (;;) {
        const progress = await windowProgress(runtime.pool, ids);
        view.update(progress);
        if (progress.every((p) => p.done + p.failed === p.total)) return progress;
        // Windows whose job Redis lost (a flush, a restart without persistence) would be waited on
        // forever: their jobs are put back, from the rows in Postgres.
        if (Date.now() - lastHeal >= healEveryMs) {
          lastHeal = Date.now();
          requeued += await requeueIdleWindows(runtime, healEveryMs, ids);
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    } finally {
      view.stop();
    }
  };
  let progress: StreamProgress[];
  try {
    progress = await follow();
  } catch (error) {
    // Ended by a failure of its own (Postgres lost, say): a failed run, if it can still be written.
    if (options.record) {
      await recordFailedRun(runtime, { kind: 'sync', ...options.record, startedAt, error }).catch(() => undefined);
    }
    throw error;
  }
  if (options.record) {
    const readIds = started.windows.filter((w) => w.status !== 'done').map((w) => w.id);
    await recordWindowsRun(runtime, { ...options.record, startedAt, readIds });
  }
  if (requeued > 0)
    console.log(`note: ${requeued} window(s) had lost their job (did Redis lose its data?) and were enqueued again`);
  for (const p of progress) {
    // A record the exchange changed since it was last read is updated, never silently: say how many.
    const revised = p.revised > 0 ? `, ${p.revised} records revised` : '';
    console.log(`${p.stream}: ${p.done}/${p.total} windows done, ${p.rows} rows read${revised}`);
  }
  const failed = await failedWindows(runtime.pool, ids);
  for (const w of failed) {
    const range = `${formatInstant(w.start)} .. ${formatInstant(w.end)}`;
    console.log(`failed: ${w.stream}${w.scope ? ` ${w.scope}` : ''} ${range}: ${w.lastError ?? 'unknown error'}`);
  }
  if (failed.length > 0) throw new WindowsFailedError(failed.length);
  return progress;
}
