import type pg from 'pg';

import type { Logger } from '../../logging/logger.ts';
import type { AlertSender } from './alert-sender.ts';
import type { AlertClaim } from './heartbeat-claim.ts';

export interface HeartbeatOptions {
  pool: pg.Pool;
  sender: AlertSender;
  log: Logger;
  /** ALERT_NO_SUCCESS_HOURS: how long without a successful sync before the alert. */
  noSuccessAfterMs: number;
  checkEveryMs?: number;
  clock?: () => number;
  /**
   * Shared by every worker of the installation (redisAlertClaim): one of them sends a due alert,
   * not each. Without it this heartbeat decides alone (one worker, tests).
   */
  claim?: AlertClaim;
}

/**
 * Alerts when no sync of any account succeeded for `noSuccessAfterMs` (the
 * nightly run stopped: no worker picked up the schedule, every account fails).
 * A worker that just started counts from its start, so a fresh install or a
 * long-stopped worker does not alert at once; once alerted, it alerts again
 * only after another full period without success. With `claim`, N workers
 * send one alert per period between them, not N.
 */
export function startSuccessHeartbeat(options: HeartbeatOptions): { check(): Promise<void>; close(): void } {
  const clock = options.clock ?? Date.now;
  const startedAt = clock();
  let alertedAt: number | undefined;

  async function check(): Promise<void> {
    const accounts = await options.pool.query('SELECT 1 FROM account LIMIT 1');
    if (accounts.rowCount === 0) return;
    const result = await options.pool.query<{ at: Date | null }>(
      `SELECT max(finished_at) AS at FROM run WHERE kind = 'sync' AND status = 'succeeded'`,
    );
    const last = result.rows[0]?.at?.getTime();
    const now = clock();
    const since = Math.max(last ?? startedAt, startedAt, alertedAt ?? 0);
    if (now - since < options.noSuccessAfterMs) return;
    alertedAt = now;
    // Another worker sent it (or is sending it) this period: this one waits a period as well.
    if (options.claim && !(await options.claim(now, options.noSuccessAfterMs))) return;
    const hours = Math.round(options.noSuccessAfterMs / 3_600_000);
    options.sender.send({
      event: 'no_recent_success',
      text: `ledgerline: no sync succeeded for ${hours} h (last: ${last ? new Date(last).toISOString() : 'never'})`,
      lastSuccess: last ? new Date(last).toISOString() : null,
      at: new Date(now).toISOString(),
    });
  }

  const timer = setInterval(
    () => {
      check().catch((error: unknown) => options.log.warn({ err: error }, 'success heartbeat could not check'));
    },
    options.checkEveryMs ?? 15 * 60_000,
  );
  timer.unref();
  return { check, close: () => clearInterval(timer) };
}
