import type { Logger } from '../../logging/logger.ts';

/** What an alert says: `text` for Slack (and anything that shows one line), the rest for machines. */
export interface Alert {
  event:
    | 'sync_failed'
    | 'reconciliation_failed'
    | 'export_failed'
    | 'no_recent_success'
    | 'window_lost'
    | 'exchange_shape_drift'
    | 'exchange_answer_refused'
    | 'schedule_skipped'
    | 'database_cannot_write';
  text: string;
  account?: string | null;
  accountId?: string | null;
  /** One line each: never a secret (job errors are one-line LedgerlineErrors, no credentials). */
  failures?: string[];
  at: string;
  [field: string]: unknown;
}

export interface AlertSenderOptions {
  /** ALERT_WEBHOOK_URL: a secret (its path is the key), so it is never logged, only its host. */
  url: string;
  log: Logger;
  attempts?: number;
  baseDelayMs?: number;
  timeoutMs?: number;
}

export interface AlertSender {
  /** Sends in the background with retries; never throws, never waits for the webhook. */
  send(alert: Alert): void;
  /** Resolves when every alert sent so far was delivered or given up (tests, shutdown). */
  settled(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/**
 * A fire-and-forget webhook client: a run never waits for its alert, and an
 * alert outlives a webhook that is down for a minute (5 attempts, 1 s, 2 s,
 * 4 s, 8 s apart). An alert still undelivered then is logged and dropped: the
 * run history (`ledgerline runs`) keeps what happened.
 */
export function createAlertSender(options: AlertSenderOptions): AlertSender {
  const attempts = options.attempts ?? 5;
  const baseDelayMs = options.baseDelayMs ?? 1_000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const host = new URL(options.url).host;
  const pending = new Set<Promise<void>>();

  async function deliver(alert: Alert): Promise<void> {
    const body = JSON.stringify(alert);
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      let outcome: string;
      try {
        const response = await fetch(options.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(timeoutMs),
        });
        await response.body?.cancel();
        if (response.ok) return;
        outcome = `HTTP ${response.status}`;
      } catch (error) {
        outcome = (error as Error).name;
      }
      options.log.warn({ host, event: alert.event, attempt, outcome }, 'alert not delivered');
      if (attempt < attempts) await sleep(baseDelayMs * 2 ** (attempt - 1));
    }
    options.log.error({ host, event: alert.event, text: alert.text }, 'alert dropped after its retries');
  }

  return {
    send(alert) {
      const delivery = deliver(alert).finally(() => pending.delete(delivery));
      pending.add(delivery);
    },
    async settled() {
      await Promise.all([...pending]);
    },
  };
}
