import { idleOpenWindows } from '../../ingest/coverage/window-store.ts';
import { type Logger, logger } from '../../logging/logger.ts';
import type { AppRuntime } from '../app-runtime.ts';
import type { SkewedSchedule } from '../job-port.ts';
import type { Alert, AlertSender } from '../observability/alert-sender.ts';

export interface HealResult {
  /** Job schedulers that were missing and are registered again. */
  schedules: string[];
  /** Job schedulers whose next run lay further ahead than their interval (a clock jump), registered again. */
  skewed: SkewedSchedule[];
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
export async function healQueues(runtime: AppRuntime, idleMs: number, now = Date.now()): Promise<HealResult> {
  const missing = await runtime.jobs.missingSchedules();
  if (missing.length > 0) await runtime.jobs.upsertSchedules();
  const skewed = await runtime.jobs.repairSkewedSchedules(now);
  const windows = await requeueIdleWindows(runtime, idleMs);
  return { schedules: missing, skewed, windows };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The alert for a schedule found too far ahead: what would have been skipped, and its next run now. */
export function alertOfSkewedSchedule(skewed: SkewedSchedule, at: number): Alert {
  return {
    event: 'schedule_skipped',
    text:
      `ledgerline: schedule ${skewed.id} (${skewed.pattern}) was due next at ${iso(skewed.next)}, further ahead ` +
      `than its interval (a clock jump): runs until then would have been skipped; registered again, next run ${iso(skewed.now)}`,
    schedule: skewed.id,
    pattern: skewed.pattern,
    wasNext: iso(skewed.next),
    next: iso(skewed.now),
    at: iso(at),
  };
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
export function startHealing(
  runtime: AppRuntime,
  intervalMs: number,
  log: Logger = logger('heal'),
  sender?: AlertSender,
): Healer {
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();
  let closed = false;
  const run = async () => {
    try {
      const now = Date.now();
      const healed = await healQueues(runtime, intervalMs, now);
      for (const skewed of healed.skewed) {
        const alert = alertOfSkewedSchedule(skewed, now);
        log.error({ schedule: skewed.id, wasNext: alert.wasNext, next: alert.next }, alert.text);
        sender?.send(alert);
      }
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
