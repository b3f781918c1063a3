import { Cluster, Redis, type RedisOptions } from 'ioredis';

import type { RedisNode } from '../config/config.ts';

/** Where a process's Redis is: one server by URL, or a Redis Cluster by its seed nodes. */
export interface RedisTarget {
  redisUrl: string;
  /** Non-empty: connect to the cluster (REDIS_CLUSTER_NODES) and ignore redisUrl. */
  redisClusterNodes?: readonly RedisNode[];
}

/**
 * A Redis connection for BullMQ and the rate budget. Workers need
 * `maxRetriesPerRequest: null` (blocking commands must wait through
 * reconnects instead of failing). On a cluster every node gets the same
 * options, and BullMQ's and the budget's scripts run unchanged provided every
 * key of one script shares a slot: the hash-tagged QUEUE_PREFIX sees to that
 * (config.ts refuses a cluster without one).
 */
export function createRedisConnection(redisUrl: string, options?: RedisOptions): Redis;
export function createRedisConnection(target: RedisTarget, options?: RedisOptions): Redis | Cluster;
export function createRedisConnection(target: RedisTarget | string, options: RedisOptions = {}): Redis | Cluster {
  const redisOptions: RedisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true, ...options };
  const { redisUrl, redisClusterNodes = [] } = typeof target === 'string' ? { redisUrl: target } : target;
  if (redisClusterNodes.length === 0) return new Redis(redisUrl, redisOptions);
  return new Cluster(
    redisClusterNodes.map((node) => ({ host: node.host, port: node.port })),
    { redisOptions, enableReadyCheck: true },
  );
}
