import { Cluster, Redis } from 'ioredis';
import pg from 'pg';

import type { Config } from '../config/config.ts';
import { reasonOf, UNDEFINED_DATABASE } from '../db/connection-loss.ts';
import { databaseName } from '../db/ensure-database.ts';
import { assertMigrated } from '../db/migration-state.ts';
import { DatabaseNotReadyError, ServiceUnreachableError } from '../errors/index.ts';
import { cannotWrite, DatabaseCannotWriteError } from '../ingest/coverage/storage-alarm.ts';

export type Store = 'postgres' | 'redis';

/** How a command's one line starts when the database cannot write, as `status` says it. */
export const DATABASE_CANNOT_WRITE = 'DATABASE CANNOT WRITE';

/**
 * How long each store may take to answer the probe. Both are probed at once,
 * so a command answers well within 10 s however the store fails (refused,
 * silent, or a black-holed address).
 */
export const PROBE_TIMEOUT_MS = 2_500;

export interface CheckOptions {
  /**
   * Whether the database must also exist at this build's migrations (every command that uses
   * its tables; not `migrate`, which makes it so). Checked within the same probe and deadline.
   */
  migrated?: boolean;
}

/**
 * Checks, before a command starts, that the stores it needs answer. Without
 * it a command with Redis down waits forever (BullMQ's connections retry every
 * command until Redis returns) while ioredis prints an error per reconnect,
 * and one with Postgres on a silent address waits for the kernel's timeout.
 * Throws a ServiceUnreachableError naming the first store that did not answer,
 * else (with `migrated`) a DatabaseNotReadyError saying what the database lacks:
 * found here, a missing table is one line instead of a Prisma stack halfway
 * through the work, and a worker refuses before it registers its schedules.
 */
export async function checkServices(
  config: Config,
  stores: readonly Store[],
  options: CheckOptions = {},
): Promise<void> {
  const probes = stores.map((store) =>
    store === 'postgres' ? probePostgres(config, options.migrated ?? false) : probeRedis(config),
  );
  const results = await Promise.allSettled(probes);
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason);
  // A store that does not answer is named before a database that answers but is not ready:
  // waiting for it is the first thing to do, and the next run then says what the database lacks.
  const first = failed.find((reason) => reason instanceof ServiceUnreachableError) ?? failed[0];
  if (failed.length > 0) throw first;
}

async function probePostgres(config: Config, migrated: boolean): Promise<void> {
  const where = hostOf(config.databaseUrl, 5432);
  const client = new pg.Client({
    connectionString: config.databaseUrl,
    connectionTimeoutMillis: PROBE_TIMEOUT_MS,
    query_timeout: PROBE_TIMEOUT_MS,
  });
  // A connection lost after the probe must not crash the process: the probe is over by then.
  client.on('error', () => undefined);
  try {
    await withDeadline(
      (async () => {
        await client.connect();
        await client.query('SELECT 1');
        if (migrated) await assertMigrated(client, databaseName(config.databaseUrl));
      })(),
    );
    await client.end();
  } catch (error) {
    // Not awaited: ending a connection to a server that never answers waits for that server too.
    client.end().catch(() => undefined);
    if (error instanceof DatabaseNotReadyError) throw error;
    // The server answers but cannot write a new session's files (a full tablespace): not unreachable.
    const refused = cannotWrite(error);
    if (refused) throw new DatabaseCannotWriteError(refused, error, DATABASE_CANNOT_WRITE);
    if ((error as { code?: unknown }).code === UNDEFINED_DATABASE) {
      if (!migrated) return;
      throw DatabaseNotReadyError.missing(databaseName(config.databaseUrl), error);
    }
    throw new ServiceUnreachableError('Postgres', 'DATABASE_URL', where, reasonOf(error), error);
  }
}

async function probeRedis(config: Config): Promise<void> {
  const clustered = config.redisClusterNodes.length > 0;
  const where = clustered
    ? config.redisClusterNodes.map((n) => `${n.host}:${n.port}`).join(',')
    : hostOf(config.redisUrl, 6379);
  const options = {
    lazyConnect: true,
    connectTimeout: PROBE_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    // The probe's PING is the readiness check; ioredis' own INFO would wait on a silent server unbounded.
    enableReadyCheck: false,
    // One attempt: the probe reports, it does not wait for Redis to come back.
    retryStrategy: () => null,
    // disconnect() otherwise keeps the process alive 2 s waiting for a socket that never opened.
    disconnectTimeout: 100,
  };
  // A cluster is probed as the runtime will use it: through its seed nodes, slots and all.
  const redis = clustered
    ? new Cluster(
        config.redisClusterNodes.map((n) => ({ host: n.host, port: n.port })),
        {
          lazyConnect: true,
          enableOfflineQueue: false,
          enableReadyCheck: false,
          clusterRetryStrategy: () => null,
          redisOptions: options,
        },
      )
    : new Redis(config.redisUrl, options);
  let lastError: unknown;
  // ioredis reports each failed connection attempt as an event; the probe's answer is the rejection below.
  redis.on('error', (error: unknown) => (lastError = error));
  try {
    await withDeadline(
      (async () => {
        await redis.connect();
        await redis.ping();
      })(),
    );
  } catch (error) {
    const variable = clustered ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL';
    throw new ServiceUnreachableError('Redis', variable, where, reasonOf(lastError ?? error), error);
  } finally {
    redis.disconnect();
  }
}

/** Rejects when `work` has not settled within the probe's time: a store that accepts and never answers. */
async function withDeadline(work: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
  });
  try {
    await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** host:port of a service URL, never its user or password. */
export function hostOf(url: string, defaultPort: number): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || defaultPort}`;
  } catch {
    return 'an unparsable URL';
  }
}
