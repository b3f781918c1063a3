import type { AppRuntime } from '../../src/app/app-runtime.ts';
import type { StartedBackfill } from '../../src/app/services/backfill.ts';
import { watchWindows } from '../../src/cli/watch-windows.ts';

/** The backfill's windows as stored, oldest first: status, attempts counted, last error. */
export async function windowRows(runtime: AppRuntime, started: StartedBackfill) {
  const result = await runtime.pool.query<{ status: string; attempts: number; last_error: string | null }>(
    `SELECT status::text, attempts, last_error FROM sync_window WHERE id = ANY($1::uuid[]) ORDER BY window_start`,
    [started.windows.map((w) => w.id)],
  );
  return result.rows;
}

/**
 * What the backfill command's watch ended with (its error, or 'done'), or, once `boundMs` have
 * passed, the windows as they stand: a backfill that never ends must fail the test, not hang it.
 */
export async function backfillOutcome(
  runtime: AppRuntime,
  started: StartedBackfill,
  boundMs: number,
): Promise<unknown> {
  const watching = watchWindows(runtime, started, { title: 'backfill', inProcessWorker: true }).then(
    () => 'done',
    (error: unknown) => error,
  );
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<{ stillRunningAfterMs: number }>((resolve) => {
    timer = setTimeout(() => resolve({ stillRunningAfterMs: boundMs }), boundMs);
  });
  const outcome = await Promise.race([watching, bound]);
  clearTimeout(timer);
  if (outcome instanceof Object && 'stillRunningAfterMs' in outcome) {
    return { ...outcome, windows: await windowRows(runtime, started) };
  }
  return outcome;
}
