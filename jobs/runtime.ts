import type { Redis } from 'ioredis';
import pg from 'pg';
import { AccountService } from '../src/accounts/account-service.ts';
import type { Config } from '../src/config/config.ts';
import { createPrisma, type PrismaClient } from '../src/db/prisma.ts';
import { ENDPOINT_NAMES, ENDPOINTS, type EndpointName } from '../src/exchange/index.ts';
import { ClientProvider, type ClientOverrides } from '../src/ingest/client-provider.ts';
import { logger } from '../src/logging/logger.ts';
import { createRedisConnection } from './connection.ts';

/**
 * The long-lived resources one process shares between its workers, queues
 * and commands, and their orderly release.
 */
export interface Runtime {
  config: Config;
  prefix: string;
  pool: pg.Pool;
  prisma: PrismaClient;
  /** Plain commands (rate budget, reads); BullMQ gets its own connections. */
  redis: Redis;
  accounts: AccountService;
  clients: ClientProvider;
  /** A new connection for a BullMQ Queue or Worker (blocking reads need their own). */
  connection(): Redis;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  prefix?: string;
  poolSize?: number;
  clientOverrides?: ClientOverrides;
}

export function createRuntime(config: Config, options: RuntimeOptions = {}): Runtime {
  const pool = new pg.Pool({
    connectionString: config.databaseUrl,
    max: options.poolSize ?? config.workerConcurrency + 2,
  });
  // An idle connection the server closes (a Postgres restart, say) is reported
  // here; without a listener it would crash the process. The pool reconnects.
  pool.on('error', (error) => logger('db').warn({ err: error }, 'idle database connection lost'));
  const prisma = createPrisma(config.databaseUrl);
  const redis = createRedisConnection(config.redisUrl);
  const accounts = new AccountService(prisma, config.masterKey);
  const prefix = options.prefix ?? config.queuePrefix;
  const clients = new ClientProvider(accounts, redis, {
    // The rate budget lives beside the queues, so installations sharing a Redis keep theirs apart.
    rateBudget: { prefix: `${prefix}:rate`, perSecond: scaledBudgets(config.exchangeRateFactor) },
    timeouts: {
      connectMs: Math.min(5_000, config.exchangeTimeoutMs),
      headersMs: config.exchangeTimeoutMs,
      bodyMs: config.exchangeTimeoutMs,
    },
    ...options.clientOverrides,
  });
  const connections: Redis[] = [];
  return {
    config,
    prefix,
    pool,
    prisma,
    redis,
    accounts,
    clients,
    connection() {
      const connection = createRedisConnection(config.redisUrl);
      connections.push(connection);
      return connection;
    },
    async close() {
      await clients.close();
      await Promise.allSettled(connections.map((c) => c.quit()));
      await redis.quit().catch(() => undefined);
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/** The spec's per-second budgets times a factor (1: exactly the spec's). */
export function scaledBudgets(factor: number): Partial<Record<EndpointName, number>> {
  if (factor === 1) return {};
  return Object.fromEntries(ENDPOINT_NAMES.map((name) => [name, ENDPOINTS[name].perSecond * factor]));
}
