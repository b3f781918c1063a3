import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { Queue, Worker } from 'bullmq';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { envSchema } from '../../src/config/env-schema.ts';
import { RateBudget, type RateRule } from '../../src/exchange/rate-budget/rate-budget.ts';

/**
 * A 3-node Redis Cluster started by this file on free loopback ports (never skipped: without
 * redis-server the file fails saying so). It proves what docs/scaling.md claims: under a
 * hash-tagged prefix the queues and the rate budget's multi-key scripts run unchanged on a
 * cluster, and why the tag must cover the installation rather than one budget.
 */
const nodes: { port: number; process: ChildProcess }[] = [];
let dir: string;
let cluster: Cluster;

function redisServerPath(): string {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      'redis-server is not installed: this test starts a 3-node Redis Cluster itself (apt-get install redis-server)',
    );
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Three ports, each with its cluster bus port (port + 10000) free as well. */
async function freePorts(): Promise<number[]> {
  const ports: number[] = [];
  for (let port = 20_000 + Math.floor(Math.random() * 9_000); ports.length < 3; port += 1) {
    if ((await portFree(port)) && (await portFree(port + 10_000))) ports.push(port);
  }
  return ports;
}

async function answers(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    try {
      execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'pipe' });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`redis-server on port ${port} did not answer`);
}

beforeAll(async () => {
  const server = redisServerPath();
  dir = mkdtempSync(path.join(os.tmpdir(), 'll-cluster-'));
  for (const port of await freePorts()) {
    const child = spawn(
      server,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${port}.conf`,
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
      ],
      { stdio: 'ignore' },
    );
    nodes.push({ port, process: child });
  }
  for (const node of nodes) await answers(node.port);
  execFileSync('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-yes'], {
    stdio: 'pipe',
  });
  cluster = new Cluster(
    nodes.map((n) => ({ host: '127.0.0.1', port: n.port })),
    { redisOptions: { maxRetriesPerRequest: null } },
  );
  // The cluster takes a moment to agree on its slots after create.
  for (let attempt = 0; ; attempt += 1) {
    try {
      await cluster.set('{probe}:ready', '1');
      break;
    } catch (error) {
      if (attempt > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}, 60_000);

afterAll(async () => {
  await cluster?.quit().catch(() => undefined);
  for (const node of nodes) node.process.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
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
