import { randomBytes } from 'node:crypto';

import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createRuntime, scaledBudgets } from '../../jobs/composition/create-runtime.ts';
import { type RunningWorkers, startWorkers } from '../../jobs/composition/workers.ts';
import type { Runtime } from '../../jobs/runtime.ts';
import { startBackfill } from '../../src/app/services/backfill.ts';
import { loadConfig } from '../../src/config/config.ts';
import { ValidationError } from '../../src/errors/index.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import { runCliLive } from '../helpers/cli.ts';
import { clusterKeys, type LocalCluster, startRedisCluster } from '../helpers/redis-cluster.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

/**
 * The runtime itself on a 3-node Redis Cluster (REDIS_CLUSTER_NODES): queues,
 * workers and the rate budget connect with ioredis' Cluster under the
 * hash-tagged QUEUE_PREFIX, and a backfill of the simulator completes.
 */
const DAY = 86_400_000;
const FACTOR = 50;
const db = useTestDatabase('redis-cluster-runtime');
const prefix = `{ll-${randomBytes(4).toString('hex')}}`;
let local: LocalCluster | undefined;
let sim: RunningSimulator | undefined;
let runtime: Runtime | undefined;
let workers: RunningWorkers | undefined;

beforeAll(async () => {
  local = await startRedisCluster();
  sim = await startSimulator({ scale: 'tiny', rateLimits: { enabled: true, factor: FACTOR } });
}, 60_000);

afterAll(async () => {
  await workers?.close();
  await runtime?.close();
  await sim?.close();
  await local?.stop();
});

const clusterEnv = () => ({
  DATABASE_URL: db.url,
  REDIS_URL: 'redis://127.0.0.1:1',
  NODE_ENV: 'test',
  REDIS_CLUSTER_NODES: local!.nodes,
  QUEUE_PREFIX: prefix,
  EXCHANGE_RATE_FACTOR: String(FACTOR),
});

describe('the runtime with REDIS_CLUSTER_NODES', () => {
  it('refuses a prefix without a hash tag before connecting to anything', () => {
    const config = loadConfig(clusterEnv());
    expect(() => createRuntime(config, { prefix: 'untagged' })).toThrow(ValidationError);
    expect(() => createRuntime(config, { prefix: 'untagged' })).toThrow(/QUEUE_PREFIX: must be hash-tagged/);
  });

  it('backfills the simulator through cluster queues, with every budget key in the queues slot', async () => {
    const config = loadConfig(clusterEnv());
    runtime = createRuntime(config, { clientOverrides: { retry: { baseDelayMs: 20, maxDelayMs: 200 } } });
    expect(runtime.redis).toBeInstanceOf(Cluster);
    expect(runtime.connection()).toBeInstanceOf(Cluster);
    expect(scaledBudgets(FACTOR).spotRecord).toBe(FACTOR);
    workers = startWorkers(runtime, { concurrency: 4 });
    const account = await runtime.accounts.add({
      name: 'demo',
      baseUrl: sim!.url,
      apiKey: sim!.demo.apiKey,
      secretKey: sim!.demo.secretKey,
      passphrase: sim!.demo.passphrase,
      uid: sim!.demo.uid,
      isBrokerParent: true,
      isUnifiedAccount: true,
    });
    const now = Date.now();
    const started = await startBackfill(runtime, {
      account: account.name,
      stream: 'all',
      from: now - 60 * DAY,
      to: now,
      now,
    });
    const ids = started.windows.map((w) => w.id);
    expect(ids.length).toBeGreaterThan(3);
    const deadline = Date.now() + 90_000;
    for (;;) {
      const progress = await windowProgress(runtime.pool, ids);
      expect(progress.every((p) => p.failed === 0)).toBe(true);
      if (progress.every((p) => p.done === p.total)) break;
      if (Date.now() > deadline) throw new Error(`backfill not finished: ${JSON.stringify(progress)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const stored = await runtime.pool.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM spot_record) + (SELECT count(*) FROM broker_transfer) AS n`,
    );
    expect(Number(stored.rows[0]!.n)).toBeGreaterThan(0);

    // The budgets the calls took, and the queues, as the cluster holds them: one slot for all.
    const { cluster } = local!;
    const budgetKeys = await clusterKeys(cluster, `${prefix}:rate*`);
    const queueKeys = await clusterKeys(cluster, `${prefix}:ingest:*`);
    expect(budgetKeys.some((k) => k.includes('spotRecord'))).toBe(true);
    expect(queueKeys.length).toBeGreaterThan(0);
    const slots = new Set(
      await Promise.all([...budgetKeys, ...queueKeys].map((key) => cluster.cluster('KEYSLOT', key))),
    );
    expect(slots.size).toBe(1);
  }, 120_000);

  it('serves the CLI: its probe and runtime go through the cluster, and a dead cluster is named by its variable', async () => {
    const listed = await runCliLive(['status'], clusterEnv());
    expect(listed.stderr).toBe('');
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(/\bdemo\b/);
    // REDIS_URL points nowhere here: only the cluster could have answered.
    const dead = await runCliLive(['status'], { ...clusterEnv(), REDIS_CLUSTER_NODES: '127.0.0.1:1' });
    expect(dead.status).not.toBe(0);
    expect(dead.stderr).toMatch(/REDIS_CLUSTER_NODES/);
  }, 60_000);
});
