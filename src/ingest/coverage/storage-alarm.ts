import type { Cluster, Redis } from 'ioredis';

import { TransientError } from '../../errors/index.ts';
import { databaseWriteFailures } from '../../metrics/instruments.ts';

/**
 * Postgres errors that mean the database cannot write at all, not that one statement was wrong:
 * SQLSTATE class 53 (insufficient resources: 53100 disk full), 58030 (I/O error) and 25006 (a
 * read-only database or transaction), or the kernel's "No space left on device" in the message.
 */
const CANNOT_WRITE = new Set(['53000', '53100', '53200', '53300', '53400', '58030', '25006']);

/**
 * A new session's FATAL when it cannot write its relation-cache file (pg_internal.init) into the
 * database's directory: Postgres (up to 17 at least) says only "could not write init file", as
 * SQLSTATE XX000, without the kernel's reason. On a full tablespace every session opened after the
 * file was invalidated (a catalog change, a server restart) meets it, so a pool that opens a
 * connection fails as if the server were gone.
 */
const INIT_FILE = /could not write init file/i;

/** The cause when `error` means the database cannot write; undefined for any other error. */
export function cannotWrite(error: unknown): { code: string; message: string } | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    // Prisma's pg adapter wraps the server's error (P2039 "Database error"): its SQLSTATE and its
    // words are inside; the wrapper's own ("Invalid `prisma.run.create()` invocation") name no cause.
    const adapter = (
      e as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown; originalMessage?: unknown } } } }
    ).meta?.driverAdapterError?.cause;
    const code = typeof adapter?.originalCode === 'string' ? adapter.originalCode : (e as { code?: unknown }).code;
    const message = oneLine(typeof adapter?.originalMessage === 'string' ? adapter.originalMessage : e.message);
    if (typeof code === 'string' && CANNOT_WRITE.has(code)) return { code, message };
    if (/No space left on device/i.test(message)) return { code: '53100', message };
    if (INIT_FILE.test(message)) {
      return {
        code: typeof code === 'string' ? code : 'XX000',
        message:
          `${message}: a new session cannot write its relation-cache file into the database's ` +
          `directory (No space left on device, most likely: free space where the database's tablespace lies)`,
      };
    }
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

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 300);

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

/**
 * A window's job failed because the database cannot write: the job's error names the cause. A
 * command says it in capitals (`lead`), as `status` does: the one thing to fix before any other.
 */
export class DatabaseCannotWriteError extends TransientError {
  constructor(failure: { code: string; message: string }, cause?: unknown, lead = 'the database cannot write') {
    super(`${lead} (SQLSTATE ${failure.code}): ${failure.message}`, {
      code: 'DATABASE_CANNOT_WRITE',
      field: 'DATABASE_URL',
      rule: 'the database must accept writes (free disk space, not read-only)',
      cause,
    });
    this.#said = lead !== 'the database cannot write';
  }

  readonly #said: boolean;

  /** A command's line is the capitals alone, as `status` prints them: the class name adds nothing. */
  override toOneLine(): string {
    return this.#said ? this.message : super.toOneLine();
  }
}
