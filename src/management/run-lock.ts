import type pg from 'pg';

import type { Logger } from '../logging/logger.ts';

/** Gives the lock back (or drops the connection, which gives it back too). */
export type ReleaseRunLock = () => Promise<void>;

const lockKey = (actionId: string) => `management-action:${actionId}`;

/**
 * Takes the action's run lock: a Postgres session advisory lock held on a
 * connection of its own for the whole run. BullMQ may hand a job to a second
 * worker while the first still runs it (its lock lapsed during a stall); the
 * second then finds the lock taken and leaves the action alone. A worker that
 * dies drops its connection, and Postgres frees the lock with it, so a
 * takeover after a real crash proceeds. Undefined when another run holds it.
 */
export async function takeRunLock(pool: pg.Pool, actionId: string, log: Logger): Promise<ReleaseRunLock | undefined> {
  const client = await pool.connect();
  let returned = false;
  const giveBack = (destroy: boolean) => {
    if (returned) return;
    returned = true;
    client.off('error', onError);
    client.release(destroy);
  };
  // A dropped connection must not crash the process. The lock is gone with it; the run goes on
  // (stopping half-way would leave more to settle), and the pool gets the broken client back.
  function onError(error: Error) {
    log.warn({ err: error, actionId }, 'run lock connection lost');
    giveBack(true);
  }
  client.on('error', onError);
  try {
    const taken = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok', [
      lockKey(actionId),
    ]);
    if (!taken.rows[0]!.ok) {
      giveBack(false);
      return undefined;
    }
  } catch (error) {
    giveBack(true);
    throw error;
  }
  return async () => {
    try {
      await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [lockKey(actionId)]);
      giveBack(false);
    } catch {
      // The connection is gone or unusable: closing it frees the lock.
      giveBack(true);
    }
  };
}
