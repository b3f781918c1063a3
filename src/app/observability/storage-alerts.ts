import type { Cluster, Redis } from 'ioredis';

import type { StorageAlarm, StorageFailure } from '../../ingest/coverage/storage-alarm.ts';
import type { Logger } from '../../logging/logger.ts';
import type { Alert, AlertSender } from './alert-sender.ts';

/** An alarm still raised a day after its alert is alerted again. */
const REALERT_AFTER_S = 24 * 60 * 60;

/** The alert for a database that refuses writes (a full disk, read-only), naming its refusal. */
export function alertOfStorageFailure(failure: StorageFailure, at: Date): Alert {
  return {
    event: 'database_cannot_write',
    text:
      `ledgerline: DATABASE CANNOT WRITE since ${new Date(failure.at).toISOString()}: windows fail until it can ` +
      `(SQLSTATE ${failure.code}: ${failure.message})`,
    code: failure.code,
    failures: [failure.message],
    windowId: failure.windowId,
    at: at.toISOString(),
  };
}

export interface StorageAlarmWatchOptions {
  alarm: StorageAlarm;
  redis: Redis | Cluster;
  prefix: string;
  sender: AlertSender;
  log: Logger;
  checkEveryMs?: number;
}

/**
 * Now and then, reads the workers' storage alarm (kept in Redis: the database cannot say it cannot
 * write) and alerts once per stretch: the first worker to claim it sends, with any number of
 * workers; a stretch still on a day later is alerted again, and one that ended lets the next alert.
 */
export function watchStorageAlarm(options: StorageAlarmWatchOptions): { check(): Promise<Alert[]>; close(): void } {
  const claimKey = `${options.prefix}:storage:write-failure:alerted`;
  async function check(): Promise<Alert[]> {
    const failure = await options.alarm.current();
    if (!failure) {
      await options.redis.del(claimKey);
      return [];
    }
    const claimed = await options.redis.set(claimKey, String(failure.at), 'EX', REALERT_AFTER_S, 'NX');
    if (claimed !== 'OK') return [];
    const alert = alertOfStorageFailure(failure, new Date());
    options.log.error({ ...alert, text: undefined }, alert.text);
    options.sender.send(alert);
    return [alert];
  }
  const run = () => {
    check().catch((error: unknown) => options.log.warn({ err: error }, 'storage alarm not checked'));
  };
  run();
  const timer = setInterval(run, options.checkEveryMs ?? 30_000);
  timer.unref();
  return { check, close: () => clearInterval(timer) };
}
