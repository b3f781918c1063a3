import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { Cluster } from 'ioredis';

/**
 * A 3-node Redis Cluster started with redis-server itself on free loopback
 * ports (never skipped: without redis-server the caller fails saying so).
 */
export interface LocalCluster {
  /** The seed nodes as REDIS_CLUSTER_NODES takes them. */
  readonly nodes: string;
  /** A connection for the test's own assertions. */
  readonly cluster: Cluster;
  stop(): Promise<void>;
}

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

export async function startRedisCluster(): Promise<LocalCluster> {
  const server = redisServerPath();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'll-cluster-'));
  const nodes: { port: number; process: ChildProcess }[] = [];
  let cluster: Cluster | undefined;
  const stop = async () => {
    await cluster?.quit().catch(() => undefined);
    for (const node of nodes) node.process.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of await freePorts()) {
      const child = spawn(
        server,
        [
          ...['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes'],
          ...['--cluster-config-file', `nodes-${port}.conf`, '--save', '', '--appendonly', 'no', '--dir', dir],
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
    return { nodes: nodes.map((n) => `127.0.0.1:${n.port}`).join(','), cluster, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Every key under the pattern on every master of the cluster (KEYS answers for one node only). */
export async function clusterKeys(cluster: Cluster, pattern: string): Promise<string[]> {
  const perNode = await Promise.all(cluster.nodes('master').map((node) => node.keys(pattern)));
  return perNode.flat().sort();
}
