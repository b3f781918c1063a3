import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { databaseLoss } from '../../src/db/connection-loss.ts';
import { createPool, openClient } from '../../src/db/pg-connections.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const db = useTestDatabase('pgloss');
let admin: pg.Client;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
});

/** Ends the backends whose application_name is `name`, as an administrator's `pg_terminate_backend` does. */
async function terminate(name: string): Promise<number> {
  const ended = await admin.query<{ n: number }>(
    `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = $1`,
    [name],
  );
  return ended.rows[0]!.n;
}

/**
 * Resolves once the client's connection has ended. The test adds no 'error' listener of its own:
 * an 'error' event nobody listens to throws, and vitest fails the file on it.
 */
function ended(client: pg.ClientBase): Promise<void> {
  return new Promise((resolve) => client.once('end', () => resolve()));
}

describe('a Postgres connection lost under a checked-out client', () => {
  it('fails the statement in flight as a connection loss, not the process; the pool serves again', async () => {
    const pool = createPool({ connectionString: db.url, application_name: 'll-loss-pool', max: 2 });
    try {
      const held = await pool.connect();
      await held.query('BEGIN');
      const lost = ended(held);
      // Its outcome taken at once: the rejection may come before the terminate call returns.
      const sleeping = held.query('SELECT pg_sleep(30)').then(
        () => undefined,
        (error: unknown) => error,
      );
      // Wait for the statement to run on the server, then end its backend.
      for (;;) {
        const { rows } = await admin.query(
          `SELECT 1 FROM pg_stat_activity WHERE application_name = 'll-loss-pool' AND query LIKE 'SELECT pg_sleep%'`,
        );
        if (rows.length > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await terminate('ll-loss-pool')).toBe(1);
      const failure = await sleeping;
      expect(databaseLoss(failure, db.url)).toEqual({
        kind: 'lost',
        reason: 'terminating connection due to administrator command',
      });
      await lost;
      held.release();
      // A new connection from the same pool, the broken one dropped.
      const again = await pool.query<{ one: number }>('SELECT 1 AS one');
      expect(again.rows[0]!.one).toBe(1);
      expect(pool.totalCount).toBe(1);
    } finally {
      await pool.end();
    }
  });

  it('an idle checked-out client between statements: its loss is heard, its next statement fails', async () => {
    const pool = createPool({ connectionString: db.url, application_name: 'll-loss-idle', max: 1 });
    try {
      const held = await pool.connect();
      await held.query('SELECT 1');
      const lost = ended(held);
      expect(await terminate('ll-loss-idle')).toBe(1);
      await lost;
      await expect(held.query('SELECT 1')).rejects.toThrow(/not queryable|Connection terminated/);
      held.release();
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
    } finally {
      await pool.end();
    }
  });

  it('a client of its own (a report’s long read): the loss fails its statement, not the process', async () => {
    const client = await openClient({ connectionString: db.url, application_name: 'll-loss-own' });
    const lost = ended(client);
    expect(await terminate('ll-loss-own')).toBe(1);
    await lost;
    await expect(client.query('SELECT 1')).rejects.toThrow();
    await client.end().catch(() => undefined);
  });
});
