import { Redis, type RedisOptions } from 'ioredis';

/**
 * A Redis connection for BullMQ. Workers need `maxRetriesPerRequest: null`
 * (blocking commands must wait through reconnects instead of failing).
 */
export function createRedisConnection(redisUrl: string, options: RedisOptions = {}): Redis {
  return new Redis(redisUrl, { maxRetriesPerRequest: null, enableReadyCheck: true, ...options });
}
