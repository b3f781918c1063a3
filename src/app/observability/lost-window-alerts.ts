import type pg from 'pg';

import {
  accountsWithOpenForgettingWindows,
  type LostWindow,
  recordLostWindows,
} from '../../ingest/coverage/lost-windows.ts';
import type { Logger } from '../../logging/logger.ts';
import type { Alert, AlertSender } from './alert-sender.ts';

const iso = (ms: number) => new Date(ms).toISOString();

/** The alert for one lost window: `text` for people, the window's facts for machines. */
export function alertOfLostWindow(lost: LostWindow): Alert {
  const scope = lost.scope ? ` ${lost.scope}` : '';
  return {
    event: 'window_lost',
    text:
      `ledgerline: ${lost.stream}${scope} window ${iso(lost.start)} .. ${iso(lost.end)} of ${lost.account} ` +
      `is LOST: ${lost.reason}`,
    account: lost.account,
    accountId: lost.accountId,
    stream: lost.stream,
    scope: lost.scope,
    windowId: lost.windowId,
    start: iso(lost.start),
    end: iso(lost.end),
    readableFrom: iso(lost.readableFrom),
    reason: lost.reason,
    at: iso(lost.detectedAt),
  };
}

export interface LostWindowWatchOptions {
  pool: pg.Pool;
  /** Absent without ALERT_WEBHOOK_URL: losses are still recorded and logged. */
  sender?: AlertSender;
  log: Logger;
  checkEveryMs?: number;
  /** Whether to check at once, not only after the first `checkEveryMs` (default true). */
  checkAtStart?: boolean;
  /**
   * The exchange's "now" for an account: what the sync plans and names lost windows by
   * (`exchangeNow` of src/app/services/exchange-now.ts, the offset the account's client measured).
   * Never the local clock: the horizon is the exchange's, and a local clock months off it would
   * leave lost_window empty while the sync says "lost" (or record windows still readable).
   */
  exchangeNow: (accountId: string) => Promise<number>;
}

/**
 * Finds, now and then every `checkEveryMs`, the windows that passed the horizon unread, records
 * each in lost_window and alerts for it. Each account is judged on its exchange's clock, read
 * only for accounts with an unfinished window that could be lost. Only the process whose insert
 * recorded a window is handed it, so with any number of workers, and on every later check, a
 * loss alerts once.
 */
export function watchLostWindows(options: LostWindowWatchOptions): { check(): Promise<LostWindow[]>; close(): void } {
  async function check(): Promise<LostWindow[]> {
    const lost: LostWindow[] = [];
    for (const accountId of await accountsWithOpenForgettingWindows(options.pool)) {
      let now: number;
      try {
        now = await options.exchangeNow(accountId);
      } catch (error) {
        // Not judged on the local clock instead: the next check, or the sync, tries again.
        options.log.warn({ err: error, accountId }, "lost windows not checked: the exchange's clock could not be read");
        continue;
      }
      for (const window of await recordLostWindows(options.pool, accountId, now)) {
        const alert = alertOfLostWindow(window);
        options.log.error({ ...alert, text: undefined }, alert.text);
        options.sender?.send(alert);
        lost.push(window);
      }
    }
    return lost;
  }

  const run = () => {
    check().catch((error: unknown) => options.log.warn({ err: error }, 'lost windows could not be checked'));
  };
  if (options.checkAtStart !== false) run();
  const timer = setInterval(run, options.checkEveryMs ?? 15 * 60_000);
  timer.unref();
  return { check, close: () => clearInterval(timer) };
}
