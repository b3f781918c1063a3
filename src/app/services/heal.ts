import { idleOpenWindows } from '../../ingest/coverage/window-store.ts';
import { type Logger, logger } from '../../logging/logger.ts';
import type { AppRuntime } from '../app-runtime.ts';

export interface HealResult {
  /** Job schedulers that were missing and are registered again. */
  schedules: string[];
  /** Windows that were pending or running with no job behind them, enqueued again. */
  windows: number;
}

/**
 * Puts back what Redis lost: job schedulers, and the jobs of windows that Postgres says are
 * pending or running. Postgres is the truth about windows, so after a FLUSHDB or a restart
 * without persistence nothing waits forever: every open window gets its job again, and the
 * nightly sync its schedule. Windows touched in the last `idleMs` are left to whoever is
 * planning them this moment. Safe to run in every worker at once: schedulers are upserted by
 * id and window jobs added under their deterministic ids.
 */
export async function healQueues(runtime: AppRuntime, idleMs: number): Promise<HealResult> {
  const missing = await runtime.jobs.missingSchedules();
  if (missing.length > 0) await runtime.jobs.upsertSchedules();
  const windows = await requeueIdleWindows(runtime, idleMs);
  return { schedules: missing, windows };
}

/**
 * Enqueues again the windows (of `ids`, or all) that are pending or running, untouched for
 * `idleMs`, and have no job: Redis lost it. Returns how many got a job.
 */
export async function requeueIdleWindows(
  runtime: AppRuntime,
  idleMs: number,
  ids?: readonly string[],
): Promise<number> {
  return runtime.jobs.enqueueWindows(await idleOpenWindows(runtime.pool, idleMs, ids));
}

export interface Healer {
  close(): Promise<void>;
}

/**
 * Runs healQueues every `intervalMs` until closed. A failed round (Redis or
 * Postgres down at that moment) is logged and tried again next round.
 */
export function startHealing(runtime: AppRuntime, intervalMs: number, log: Logger = logger('heal')): Healer {
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();
  let closed = false;
  const run = async () => {
    try {
      const healed = await healQueues(runtime, intervalMs);
      if (healed.schedules.length > 0 || healed.windows > 0) {
        log.warn(
          { schedules: healed.schedules, windows: healed.windows },
          'restored what Redis had lost: schedules registered again, open windows enqueued again',
        );
      }
    } catch (error) {
      log.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not check the queues');
    }
  };
  const next = () => {
    if (closed) return;
    timer = setTimeout(() => {
      round = run().finally(next);
    }, intervalMs);
  };
  next();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      await round;
    },
  };
}
