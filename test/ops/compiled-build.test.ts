import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { dropDatabase } from '../../src/db/ensure-database.ts';
import { compiledCliEntry } from '../helpers/compiled-cli.ts';
import { freshDatabaseUrl } from '../helpers/test-database.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';

/*
 * The compiled build cannot rot: `npm run compile`'s output (the build compiled-cli.ts made) in an
 * image-shaped folder (bin/, dist/, package.json and prisma/, no src/, as the Dockerfile's runtime
 * stage has them), then the CLI
 * started from there through bin/ledgerline.js, which must pick dist/ because no sources are beside
 * it. `migrate` exercises the WebAssembly schema engine and the path to prisma/; `runs --json` the
 * compiled Prisma client. node_modules are found by walking up to the repository's, as npm would.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const IMAGE = path.join(ROOT, 'test-artifacts', `compiled-build-${process.pid}`);
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const MIGRATIONS = readdirSync(path.join(ROOT, 'prisma/migrations'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
const databaseUrl = freshDatabaseUrl('compiled');
// QUEUE_PREFIX allows no colons, unlike the helpers' random prefixes.
const queuePrefix = `llcompiled_${randomBytes(6).toString('hex')}`;

function ledgerline(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [path.join(IMAGE, 'bin/ledgerline.js'), ...args], {
    cwd: IMAGE,
    encoding: 'utf8',
    timeout: 30_000,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl, ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(() => {
  rmSync(IMAGE, { recursive: true, force: true });
  mkdirSync(path.join(IMAGE, 'bin'), { recursive: true });
  // `npm run compile` is scripts/compile.js, which compiled-cli.ts has already run once for this
  // state of the sources (with --no-check: emitting is what is tested here, `npm run build`
  // type-checks): its output is copied rather than compiled a second time.
  const scripts = (
    JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  expect(scripts.compile).toBe('node scripts/compile.js');
  const build = path.resolve(path.dirname(compiledCliEntry()), '../..');
  cpSync(build, path.join(IMAGE, 'dist'), {
    recursive: true,
    // compiled-cli.ts's own marker of a finished build, not part of the output.
    filter: (source) => path.relative(build, source) !== 'complete',
  });
  cpSync(path.join(ROOT, 'bin/ledgerline.js'), path.join(IMAGE, 'bin/ledgerline.js'));
  cpSync(path.join(ROOT, 'package.json'), path.join(IMAGE, 'package.json'));
  cpSync(path.join(ROOT, 'prisma'), path.join(IMAGE, 'prisma'), { recursive: true });
}, 150_000);

afterAll(async () => {
  rmSync(IMAGE, { recursive: true, force: true });
  await dropDatabase(databaseUrl);
  const redis = new Redis(TEST_REDIS_URL);
  const keys = await redis.keys(`${queuePrefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

describe('the compiled build', () => {
  it('holds JavaScript only, with its imports rewritten and the Lua scripts beside their modules', () => {
    expect(existsSync(path.join(IMAGE, 'src'))).toBe(false);
    const main = readFileSync(path.join(IMAGE, 'dist/src/cli/main.js'), 'utf8');
    expect(main).toMatch(/from "\.\/commands\/accounts-command\.js"/);
    expect(main).not.toMatch(/from ['"][^'"]+\.ts['"]/);
    expect(existsSync(path.join(IMAGE, 'dist/src/app/observability/heartbeat-claim.lua'))).toBe(true);
    expect(existsSync(path.join(IMAGE, 'dist/src/generated/prisma/client.js'))).toBe(true);
  });

  it('prints the version through bin/ledgerline.js with no sources beside it', () => {
    const result = ledgerline(['--version']);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe(VERSION);
    expect(result.status).toBe(0);
  });

  it('migrates a new database with the WebAssembly engine, then finds nothing to do', async () => {
    const first = ledgerline(['migrate']);
    expect(first.status, first.stderr).toBe(0);
    for (const name of MIGRATIONS) expect(first.stdout).toContain(`applied ${name}`);

    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ migration_name: string }>(
        'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY migration_name',
      );
      expect(rows.map((row) => row.migration_name)).toEqual(MIGRATIONS);
    } finally {
      await client.end();
    }

    const second = ledgerline(['migrate']);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).not.toContain('applied ');
    expect(second.stdout).toContain('up to date');
  });

  it('reads through the compiled Prisma client', () => {
    const result = ledgerline(['runs', '--json']);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ runs: [] });
  });

  it('runs the worker compiled: /readyz and /metrics answer, and SIGTERM ends it with 0', async () => {
    const worker = spawn(process.execPath, [path.join(IMAGE, 'bin/ledgerline.js'), 'worker'], {
      cwd: IMAGE,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        DATABASE_URL: databaseUrl,
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: queuePrefix,
        METRICS_PORT: '0',
      },
    });
    const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
    try {
      // The worker logs (JSON, on stderr) the address its probes took on port 0.
      const url = await new Promise<string>((resolve, reject) => {
        let seen = '';
        const timer = setTimeout(() => reject(new Error(`no probe address within 30 s:\n${seen}`)), 30_000);
        worker.stderr!.on('data', (chunk: Buffer) => {
          seen += chunk.toString('utf8');
          const match = /"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"metrics and probes listening"/.exec(seen);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
      });
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ ready: true, postgres: true, redis: true });
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/^# TYPE ledgerline_exchange_requests_total counter$/m);
    } finally {
      worker.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 60_000);

  it('answers an unreachable Postgres with exit code 3, which migrate-when-ready.sh retries on', () => {
    const result = ledgerline(['migrate'], { DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/ledgerline' });
    expect(result.status).toBe(3);
    expect(result.stderr).toMatch(/Postgres at 127\.0\.0\.1:1 \(DATABASE_URL\) is unreachable/);
  });
});
