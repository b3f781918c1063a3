import type { Cluster, Redis } from 'ioredis';

import { TransientError } from '../../errors/index.ts';
import { databaseWriteFailures } from '../../metrics/instruments.ts';

/**
 * Postgres errors that mean the database cannot write at all, not that one statement was wrong:
 * SQLSTATE class 53 (insufficient resources: 53100 disk full), 58030 (I/O error) and 25006 (a
 * read-only database or transaction), or the kernel's "No space left on device" in the message.
 */
const CANNOT_WRITE = new Set(['53000', '53100', '53200', '53300', '53400', '58030', '25006']);

/** The cause when `error` means the database cannot write; undefined for any other error. */
export function cannotWrite(error: unknown): { code: string; message: string } | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CANNOT_WRITE.has(code)) return { code, message: oneLine(e.message) };
    if (/No space left on device/i.test(e.message)) return { code: '53100', message: oneLine(e.message) };
  }
  return undefined;
}

/** The last write the database refused, as kept in Redis (it cannot be kept in the database). */
export interface StorageFailure {
  code: string;
  message: string;
  /** When it was last refused (ms). */
  at: number;
  /** The window whose job met it. */
  windowId: string;
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').slice(0, 300);

/**
 * Where a worker says that the database refuses its writes (disk full, read-only), where nothing
 * written to the database could say it: a Redis key under the installation's prefix, read by
 * `ledgerline status`, and the process's `ledgerline_database_write_failures_total` counter. The
 * key is cleared by the next window stored, so it shows only while writing fails.
 */
export class StorageAlarm {
  readonly #redis: Redis | Cluster;
  readonly #key: string;

  constructor(redis: Redis | Cluster, prefix: string) {
    this.#redis = redis;
    this.#key = `${prefix}:storage:write-failure`;
  }

  /** Counts and keeps the failure when `error` is one of the database's refusals; returns the cause, if so. */
  async record(error: unknown, windowId: string): Promise<StorageFailure | undefined> {
    const cause = cannotWrite(error);
    if (!cause) return undefined;
    databaseWriteFailures.inc({ code: cause.code });
    const failure: StorageFailure = { ...cause, at: Date.now(), windowId };
    await this.#redis.set(this.#key, JSON.stringify(failure)).catch(() => undefined);
    return failure;
  }

  /** The database wrote again (a window stored): the alarm is over. */
  async clear(): Promise<void> {
    await this.#redis.del(this.#key).catch(() => undefined);
  }

  async current(): Promise<StorageFailure | undefined> {
    const stored = await this.#redis.get(this.#key);
    return stored === null ? undefined : (JSON.parse(stored) as StorageFailure);
  }
}

/** A window's job failed because the database cannot write: the job's error names the cause. */
export class DatabaseCannotWriteError extends TransientError {
  constructor(failure: { code: string; message: string }, cause?: unknown) {
    super(`the database cannot write (SQLSTATE ${failure.code}): ${failure.message}`, {
      code: 'DATABASE_CANNOT_WRITE',
      field: 'DATABASE_URL',
      rule: 'the database must accept writes (free disk space, not read-only)',
      cause,
    });
  }
}
