import type { Cluster, Redis } from 'ioredis';

import { AccountService } from '../../src/accounts/account-service.ts';
import { type ClientOverrides, ClientProvider } from '../../src/accounts/client-provider.ts';
import { createRedisConnection } from '../../src/app/redis-connection.ts';
import { type Config, hasHashTag } from '../../src/config/config.ts';
import { createPool } from '../../src/db/pg-connections.ts';
import { createPrisma } from '../../src/db/prisma.ts';
import { ValidationError } from '../../src/errors/index.ts';
import { PER_IP_PER_MINUTE } from '../../src/exchange/endpoints.ts';
import { recordShapeDrift } from '../../src/ingest/shape-drift-store.ts';
import { scaledRates } from '../../src/streams/endpoints.ts';
import type { Runtime } from '../runtime.ts';
import { queueJobPort } from './queue-job-port.ts';
import { type JobOptionOverrides, QueueRegistry } from './queue-registry.ts';

export interface RuntimeOptions {
  /** The queue and rate-budget key prefix (default QUEUE_PREFIX); tests pass their own. */
  prefix?: string;
  poolSize?: number;
  clientOverrides?: ClientOverrides;
  /** Queue default job options that differ from jobs/definitions.ts (tests: fewer attempts, shorter backoff). */
  jobOptions?: JobOptionOverrides;
}

/**
 * The composition root: builds every long-lived resource of a process once,
 * from the configuration, and releases them in order; the queues, and the port
 * the application services enqueue through (src/app/job-port.ts), bound to them.
 * Entry points (CLI, web, demo, benchmarks) call it; services, jobs and domain
 * code only receive parts of it.
 */
export function createRuntime(config: Config, options: RuntimeOptions = {}): Runtime {
  const prefix = options.prefix ?? config.queuePrefix;
  // loadConfig checks QUEUE_PREFIX; a prefix given here (tests, the demo's) must pass the same rule
  // (checked before anything is opened).
  if (config.redisClusterNodes.length > 0 && !hasHashTag(prefix)) {
    throw new ValidationError(
      'QUEUE_PREFIX',
      'must be hash-tagged in braces ({ledgerline}) on a Redis Cluster',
      prefix,
    );
  }
  // A connection the server drops (a restart, a failover) fails the work on it, not the process:
  // src/db/pg-connections.ts.
  const pool = createPool({
    connectionString: config.databaseUrl,
    max: options.poolSize ?? config.workerConcurrency + 2,
  });
  const prisma = createPrisma(config.databaseUrl);
  const redis = createRedisConnection(config);
  const accounts = new AccountService(prisma, config.masterKey);
  const clients = new ClientProvider(accounts, redis, {
    // The rate budget lives beside the queues, so installations sharing a Redis keep theirs apart.
    rateBudget: {
      prefix: `${prefix}:rate`,
      perSecond: scaledBudgets(config.exchangeRateFactor),
      perIpPerMinute: scaledIpBudget(config.exchangeRateFactor),
    },
    timeouts: {
      connectMs: Math.min(5_000, config.exchangeTimeoutMs),
      headersMs: config.exchangeTimeoutMs,
      bodyMs: config.exchangeTimeoutMs,
      totalMs: config.exchangeDeadlineMs,
    },
    maxAnswerBytes: config.exchangeMaxAnswerBytes,
    // Counted in Postgres, so `status`, /metrics and the drift alerts of any process see it.
    onShapeDrift: (endpoint, drift) => recordShapeDrift(pool, endpoint, drift),
    ...options.clientOverrides,
  });
  const connections: (Redis | Cluster)[] = [];
  const connection = () => {
    const created = createRedisConnection(config);
    connections.push(created);
    return created;
  };
  const queues = new QueueRegistry(prefix, redis, connection, options.jobOptions);
  return {
    config,
    prefix,
    pool,
    prisma,
    redis,
    accounts,
    clients,
    queues,
    jobs: queueJobPort({ config, pool, queues }),
    connection,
    async close() {
      await clients.close();
      await queues.close();
      await Promise.allSettled(connections.map((c) => c.quit()));
      await redis.quit().catch(() => undefined);
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/** The spec's per-second budgets times a factor (1: exactly the spec's). */
export function scaledBudgets(factor: number): Record<string, number> {
  if (factor === 1) return {};
  return scaledRates(factor);
}

/**
 * The spec's per-IP minute budget (§4.4) times the same factor, rounded as the simulator rounds it
 * (`--rate-limit-factor`): a scaled simulator's cap, or a raised tier, is used in full.
 */
export function scaledIpBudget(factor: number): number {
  return Math.max(1, Math.round(PER_IP_PER_MINUTE * factor));
}
