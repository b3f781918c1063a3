import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import net from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { exited, killSpawned, spawnCli } from '../helpers/cli.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

/*
 * `ledgerline worker` serves /livez and /readyz on METRICS_PORT, and /readyz turns 503 when
 * Redis stops. The Redis is this file's own (a redis-server it starts on a free port), so
 * stopping it disturbs no other test; without redis-server the file fails, never skips.
 */

const db = useTestDatabase('probes');
let redis: ChildProcess | undefined;
let redisPort: number;
let metricsPort: number;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const get = (path: string) => fetch(`http://127.0.0.1:${metricsPort}${path}`);

beforeAll(async () => {
  const server = execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim();
  redisPort = await freePort();
  metricsPort = await freePort();
  redis = spawn(server, ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  await until('redis-server answers', async () => {
    execFileSync('redis-cli', ['-p', String(redisPort), 'ping'], { stdio: 'pipe' });
    return true;
  });
});

afterAll(async () => {
  await killSpawned();
  if (redis && redis.exitCode === null) {
    redis.kill('SIGKILL');
    await exited(redis);
  }
});

describe('worker probes', () => {
  it('answers /livez and /readyz; /readyz turns 503 naming Redis when Redis stops, /livez stays 200', async () => {
    spawnCli(['worker'], {
      DATABASE_URL: db.url,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      METRICS_PORT: String(metricsPort),
    });
    const ready = await until('readyz 200', async () => {
      const response = await get('/readyz');
      return response.status === 200 ? response.json() : undefined;
    });
    expect(ready).toEqual({ ready: true, postgres: true, redis: true });
    expect((await get('/livez')).status).toBe(200);
    const metrics = await get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await metrics.text()).toMatch(/^ledgerline_queue_jobs\{queue="ingest",state="waiting"\} 0$/m);

    redis!.kill('SIGKILL');
    await exited(redis!);
    const down = await until('readyz 503', async () => {
      const response = await get('/readyz');
      return response.status === 503 ? response.json() : undefined;
    });
    expect(down).toEqual({ ready: false, postgres: true, redis: false });
    expect((await get('/livez')).status).toBe(200);
  });
});
