import pg from 'pg';

import { type Logger, logger } from '../logging/logger.ts';

/**
 * Every Postgres connection ledgerline opens with pg comes from here, so that none can crash the
 * process when the server drops it (a restart, a failover, `pg_terminate_backend`, a network cut).
 *
 * pg reports a dropped connection twice: the query in flight rejects, and the client emits
 * `'error'`, an EventEmitter event that ends the process when nothing listens. pg-pool listens
 * only while a client is idle: it removes its listener when the client is checked out
 * (`pool.connect()`), so a client held across statements (a page's transaction, a report's cursor)
 * had none. Here each client gets a listener of its own the moment it connects, for its whole
 * life, whoever checks it out and for however long: the work on it fails with the query's error
 * (a retryable one, see connection-loss.ts), pg-pool drops the broken client when it is released,
 * and the next checkout opens a new connection once the server answers again.
 *
 * Prisma's pg adapter keeps a pool of its own with the same care (an idle listener on the pool,
 * one per transaction's client); its other statements go through `pool.query`, which listens
 * while it runs.
 */
export function createPool(config: pg.PoolConfig, log?: Logger): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('connect', (client) => listenForLoss(client, log));
  // An idle client's loss reaches the pool too (pg-pool's idle listener): already logged by the
  // client's own listener above, and the pool has dropped the client.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * A client of its own (a report's long read, an advisory session, an admin statement), connected,
 * with the same listener for its life. The caller ends it; a statement after a loss rejects.
 */
export async function openClient(config: pg.ClientConfig, log?: Logger): Promise<pg.Client> {
  const client = new pg.Client(config);
  listenForLoss(client, log);
  await client.connect();
  return client;
}

/** The logger is found when a loss happens: opening a connection needs no configuration. */
function listenForLoss(client: pg.Client | pg.PoolClient, log: Logger | undefined): void {
  client.on('error', (error) =>
    (log ?? logger('db')).warn(
      { err: error },
      'database connection lost: the work on it fails and is retried on a new connection',
    ),
  );
}
