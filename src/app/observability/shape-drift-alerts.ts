import type pg from 'pg';

import { claimShapeDriftAlerts, type ShapeDriftRow } from '../../ingest/shape-drift-store.ts';
import { endpointLabel, shapeDriftLine } from '../../ingest/shape-drift-text.ts';
import type { Logger } from '../../logging/logger.ts';
import type { Alert, AlertSender } from './alert-sender.ts';

/** The alert for one (endpoint, field, kind): drift once, a refusal again a day after its last alert. */
export function alertOfShapeDrift(row: ShapeDriftRow, at: Date): Alert {
  return {
    event: row.kind === 'refused' ? 'exchange_answer_refused' : 'exchange_shape_drift',
    text: `ledgerline: the exchange's answers changed: ${shapeDriftLine(row)}`,
    endpoint: row.endpoint,
    path: endpointLabel(row.endpoint),
    field: row.field,
    kind: row.kind,
    count: row.count,
    firstSeen: row.firstSeenAt.toISOString(),
    lastSeen: row.lastSeenAt.toISOString(),
    at: at.toISOString(),
  };
}

export interface ShapeDriftWatchOptions {
  pool: pg.Pool;
  sender: AlertSender;
  log: Logger;
  checkEveryMs?: number;
  /** Whether to check at once, not only after the first `checkEveryMs` (default true). */
  checkAtStart?: boolean;
}

/**
 * Now and then, claims the drift counts that need an alert (a kind seen for the first time, a
 * refusal seen again) and sends one alert each through the alert channel. The claim marks them
 * in the same statement, so with any number of workers each alert is sent once.
 */
export function watchShapeDrift(options: ShapeDriftWatchOptions): { check(): Promise<Alert[]>; close(): void } {
  async function check(): Promise<Alert[]> {
    const alerts = (await claimShapeDriftAlerts(options.pool)).map((row) => alertOfShapeDrift(row, new Date()));
    for (const alert of alerts) {
      options.log[alert.event === 'exchange_answer_refused' ? 'error' : 'warn'](
        { ...alert, text: undefined },
        alert.text,
      );
      options.sender.send(alert);
    }
    return alerts;
  }
  const run = () => {
    check().catch((error: unknown) => options.log.warn({ err: error }, 'exchange shape drift not checked'));
  };
  if (options.checkAtStart !== false) run();
  const timer = setInterval(run, options.checkEveryMs ?? 60_000);
  timer.unref();
  return { check, close: () => clearInterval(timer) };
}
