import { randomBytes } from 'node:crypto';

import { type Cluster, Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach } from 'vitest';

export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A BullMQ prefix no other test uses, like BullMQ's own tests' random queue names. */
export function randomPrefix(label = 'test'): string {
  return `lltest:${label}:${randomBytes(6).toString('hex')}`;
}

/**
 * Gives each test its own BullMQ prefix and deletes that prefix's keys
 * afterwards, so tests never see each other's queues.
 */
export function useTestRedis(label?: string): { readonly prefix: string; readonly redis: Redis } {
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  let prefix = randomPrefix(label);
  beforeEach(() => {
    prefix = randomPrefix(label);
  });
  afterEach(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  });
  afterAll(async () => {
    redis.disconnect();
  });
  return {
    get prefix() {
      return prefix;
    },
    redis,
  };
}

/** Deletes every key under the given prefixes (a test's queues, its rate budgets) from the shared Redis. */
export async function deleteKeys(redis: Redis | Cluster, ...prefixes: string[]): Promise<void> {
  const keys = (await Promise.all(prefixes.map((prefix) => redis.keys(`${prefix}:*`)))).flat();
  if (keys.length > 0) await redis.del(...keys);
}
