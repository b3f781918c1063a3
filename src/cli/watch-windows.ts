import type { AppRuntime } from '../app/app-runtime.ts';
import type { StartedBackfill } from '../app/services/backfill.ts';
import { ingestWorkerCount } from '../app/services/backfill.ts';
import { requeueIdleWindows } from '../app/services/heal.ts';
import { recordFailedRun, recordInterruptedRun, recordWindowsRun, type RunOrigin } from '../app/services/record-run.ts';
import { reasonOf } from '../db/connection-loss.ts';
import { PermanentError } from '../errors/index.ts';
import { cannotWrite } from '../ingest/coverage/storage-alarm.ts';
import { failedWindows, type StreamProgress, windowProgress } from '../ingest/coverage/window-progress.ts';
import { formatInstant } from '../ingest/time-arguments.ts';
import { InterruptedError, NoWorkerError } from './interrupted-error.ts';
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

/** How often a watcher with no worker asks again whether one started (it waits NO_WORKER_WAIT_MS in all). */
const WORKER_POLL_MS = 2_000;

/**
 * Reports what was planned, then shows progress until every window is done
 * or failed; names each failed window with its error and throws when any did.
 *
 * The plan's line and the bars count alike: the bars follow the windows this run reads (those not
 * already complete), the line says how many those are beside the ones already complete. Ctrl-C
 * (SIGINT) or SIGTERM stops the watching with one line saying how far it got and that the same
 * command resumes (a recorded, interrupted run); the rerun says it is resuming.
 */
export async function watchWindows(
  runtime: AppRuntime,
  started: StartedBackfill,
  options: {
    title: string;
    inProcessWorker: boolean;
    /** The account and the command: the run is recorded in `run`, as the worker records its syncs. */
    record?: { accountId: string; by: RunOrigin };
    /** Told each progress read (the demo starts the files whose histories are complete). */
    onProgress?: (progress: readonly StreamProgress[]) => void;
  },
): Promise<StreamProgress[]> {
  const startedAt = new Date();
  for (const note of started.notes) console.log(`note: ${note}`);
  const total = started.windows.length + alreadyCoveredOnly(started);
  const toRead = started.windows.filter((w) => w.status !== 'done');
  const stillQueued = toRead.length - started.enqueued;
  console.log(
    `${options.title}: ${total} windows, ${started.alreadyDone} already complete, ${started.enqueued} enqueued` +
      (stillQueued > 0 ? ` (${toRead.length} to read: ${stillQueued} still queued from an earlier run)` : ''),
  );
  if (started.alreadyDone > 0 && toRead.length > 0) {
    // An interrupted run counted as done the windows it read up to its own "now": of those, the
    // newest of each history is read on to this run's now, so it is not "already done" here. Said, so
    // that the two counts agree (issue 44: "144 of 150 done", then "resuming: 134").
    const partly = started.partlyDone ?? 0;
    console.log(
      `resuming: ${started.alreadyDone} of ${total} windows already done` +
        (partly > 0
          ? `, ${partly} more read up to the last run's end (their rest, up to now, is read now): ` +
            `${started.alreadyDone + partly} read before`
          : ''),
    );
  }
  const ids = toRead.map((w) => w.id);
  const waitForWorker =
    !options.inProcessWorker && toRead.length > 0 && (await ingestWorkerCount(runtime)) === 0
      ? runtime.config.noWorkerWaitMs
      : undefined;
  if (waitForWorker !== undefined) {
    console.log(
      `warning: no worker is running; start one with \`ledgerline worker\` (or pass --with-worker); ` +
        `waiting ${Math.round(waitForWorker / 1000)} s for one`,
    );
  }
  const view = new WindowProgressView(runtime.config);
  const healEveryMs = runtime.config.workerHealIntervalMs;
  let lastHeal = Date.now();
  let requeued = 0;
  // Ctrl-C while watching: the loop stops at its next turn (within its 500 ms sleep), not the process.
  let interrupted = false;
  let wake: (() => void) | undefined;
  const onSignal = () => {
    interrupted = true;
    wake?.();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const follow = async (): Promise<StreamProgress[]> => {
    const watchStarted = Date.now();
    let lastWorkerCheck = watchStarted;
    let workerSeen = waitForWorker === undefined;
    try {
      for (;;) {
        const progress = await windowProgress(runtime.pool, ids);
        view.waitingForWorker = !workerSeen && !progress.some((p) => p.done + p.failed + p.openPages > 0);
        view.update(progress);
        options.onProgress?.(progress);
        if (interrupted || progress.every((p) => p.done + p.failed === p.total)) return progress;
        if (!workerSeen && Date.now() - lastWorkerCheck >= WORKER_POLL_MS) {
          lastWorkerCheck = Date.now();
          const moved = progress.some((p) => p.done + p.failed + p.openPages > 0);
          workerSeen = moved || (await ingestWorkerCount(runtime)) > 0;
          if (!workerSeen && Date.now() - watchStarted >= waitForWorker!) {
            throw new NoWorkerError(Math.round(waitForWorker! / 1000));
          }
        }
        // Windows whose job Redis lost (a flush, a restart without persistence) would be waited on
        // forever: their jobs are put back, from the rows in Postgres.
        if (Date.now() - lastHeal >= healEveryMs) {
          lastHeal = Date.now();
          requeued += await requeueIdleWindows(runtime, healEveryMs, ids);
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 500);
        });
      }
    } finally {
      view.stop();
    }
  };
  let progress: StreamProgress[];
  try {
    progress = await follow();
  } catch (error) {
    // Interrupted while the database refused the watch's read: the interruption is the line.
    if (interrupted) throw new InterruptedError(started.alreadyDone, total, unrecordedLine(error));
    // Ended by a failure of its own (Postgres lost, say): a failed run, if it can still be written.
    if (options.record && !(error instanceof NoWorkerError)) {
      await recordFailedRun(runtime, { kind: 'sync', ...options.record, startedAt, error }).catch(() => undefined);
    }
    throw error;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
  if (interrupted) {
    const done = started.alreadyDone + progress.reduce((n, p) => n + p.done, 0);
    // Interrupted is the line, whatever else fails now: a database that cannot write refuses the
    // run's record too (a Prisma P2039), and that is said in the same line, not as a stack.
    let unrecorded: string | undefined;
    if (options.record) {
      await recordInterruptedRun(runtime, { ...options.record, startedAt, readIds: ids, done, total }).catch(
        (error: unknown) => (unrecorded = unrecordedLine(error)),
      );
    }
    throw new InterruptedError(done, total, unrecorded);
  }
  if (options.record) {
    await recordWindowsRun(runtime, { ...options.record, startedAt, readIds: ids });
  }
  if (requeued > 0)
    console.log(`note: ${requeued} window(s) had lost their job (did Redis lose its data?) and were enqueued again`);
  if (toRead.length === 0) console.log(`nothing to read: all ${total} windows were already complete`);
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

/** Why an interrupted command's run was not recorded, for its one line. */
function unrecordedLine(error: unknown): string {
  const refused = cannotWrite(error);
  return refused ? `DATABASE CANNOT WRITE (SQLSTATE ${refused.code}): ${refused.message}` : reasonOf(error);
}
