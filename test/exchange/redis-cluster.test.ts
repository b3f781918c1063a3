import { Queue, Worker } from 'bullmq';
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { envSchema } from '../../src/config/env-schema.ts';
import { RateBudget, type RateRule } from '../../src/exchange/rate-budget/rate-budget.ts';
import { type LocalCluster, startRedisCluster } from '../helpers/redis-cluster.ts';

/**
 * A 3-node Redis Cluster started by this file on free loopback ports (never skipped: without
 * redis-server the file fails saying so). It proves what docs/scaling.md claims: under a
 * hash-tagged prefix the queues and the rate budget's multi-key scripts run unchanged on a
 * cluster, and why the tag must cover the installation rather than one budget.
 */
let local: LocalCluster | undefined;
let cluster: Cluster;

beforeAll(async () => {
  local = await startRedisCluster();
  cluster = local.cluster;
}, 60_000);

afterAll(async () => {
  await local?.stop();
});

// An account's endpoint budget and the per-IP minute budget, taken together as every signed call does.
const rules: RateRule[] = [
  { key: 'spotRecord:uid:1001', limit: 1, windowMs: 1_000 },
  { key: 'ip:worker-host', limit: 6_000, windowMs: 60_000 },
];

describe('on a 3-node Redis Cluster', () => {
  it('takes one slot in two budgets at once under a hash-tagged prefix, and refuses the next within the window', async () => {
    const budget = new RateBudget(cluster, { prefix: '{ledgerline}:rate' });
    const first = await budget.tryAcquire(rules);
    expect('slot' in first).toBe(true);
    const second = await budget.tryAcquire(rules);
    expect('waitMs' in second && second.waitMs).toBeGreaterThan(0);
    if ('slot' in first) await budget.complete(first.slot);
  });

  it('fails with CROSSSLOT under an untagged prefix: the tag must cover every budget a call takes', async () => {
    const budget = new RateBudget(cluster, { prefix: 'ledgerline:rate' });
    await expect(budget.tryAcquire(rules)).rejects.toThrow(/CROSSSLOT/);
  });

  it('runs a BullMQ job to completion under the prefix QUEUE_PREFIX accepts', async () => {
    const prefix = envSchema.parse({ QUEUE_PREFIX: '{ledgerline}' }).QUEUE_PREFIX;
    const queue = new Queue('ingest', { connection: cluster, prefix });
    const worker = new Worker('ingest', async (job) => (job.data as { n: number }).n + 1, {
      connection: cluster,
      prefix,
    });
    try {
      const completed = new Promise((resolve) => worker.on('completed', (_job, result) => resolve(result)));
      await queue.add('window', { n: 41 });
      expect(await completed).toBe(42);
    } finally {
      await worker.close();
      await queue.close();
    }
  });
});
