import { createServer, type Server, type Socket } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runCliLive } from '../helpers/cli.ts';
import { freshDatabaseUrl } from '../helpers/test-database.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';

// Every command, with the arguments it needs to get as far as its stores.
const COMMANDS: string[][] = [
  ['migrate'],
  ['accounts', 'list'],
  ['accounts', 'remove', 'main'],
  ['worker'],
  ['backfill', '--account', 'main', '--stream', 'spot', '--from', '2026-01-01', '--to', '2026-02-01'],
  ['sync', '--account', 'main'],
  ['status'],
  ['reconcile', '--account', 'main'],
  ['export', '--report', 'spot-ledger', '--account', 'main', '--from', '2026-01-01', '--to', '2026-01-31'],
  ['web'],
  ['subaccounts', 'list', '--account', 'main'],
  ['subaccounts', 'create', '--account', 'main', '--username', 'alice'],
  ['apikeys', 'list', '--account', 'main'],
  ['orders', 'cancel-all', '--account', 'main', '--category', 'SPOT'],
];
// The commands that use Redis (the rest read or write Postgres only).
const REDIS_COMMANDS = COMMANDS.filter(
  (args) => !['migrate', 'accounts', 'subaccounts list', 'apikeys list'].some((c) => args.join(' ').startsWith(c)),
);

/** A port that accepts connections and never answers: a store that hangs rather than refuses. */
let silent: Server;
let silentPort = 0;
const sockets = new Set<Socket>();

beforeAll(async () => {
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as { port: number }).port;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

const env = (overrides: Record<string, string>) => ({
  DATABASE_URL: freshDatabaseUrl('unreachable'),
  REDIS_URL: TEST_REDIS_URL,
  LEDGERLINE_WEB_TOKEN: 'a-web-token-of-at-least-thirty-two-chars',
  LEDGERLINE_ACCOUNT_SECRET: 'secret',
  LEDGERLINE_ACCOUNT_PASSPHRASE: 'passphrase',
  ...overrides,
});

/**
 * Runs the commands one after the other, each judged on its own clock: run side by side on 2
 * shared cores they would measure each other's start-up instead of the store check.
 */
async function runAll(commands: string[][], environment: () => Record<string, string>) {
  const results: { args: string[]; status: number | null; stdout: string; stderr: string; ms: number }[] = [];
  for (const args of commands) {
    const started = Date.now();
    // Killed after 90 s, so a hang (a silent store waited on for the kernel's timeout, or forever)
    // shows as a time over the bound and no exit status instead of a test timeout.
    const result = await runCliLive(args, environment(), 90_000);
    results.push({ args, ...result, ms: Date.now() - started });
  }
  return results;
}

function expectOneLine(results: Awaited<ReturnType<typeof runAll>>, line: RegExp) {
  for (const r of results) {
    const name = r.args.join(' ');
    expect(r.stderr, name).toMatch(line);
    expect(r.stderr.split('\n'), `${name}: ${r.stderr}`).toHaveLength(1);
    expect(r.stdout, name).toBe('');
    expect(r.status, name).toBe(3);
    // The probe gives up after PROBE_TIMEOUT_MS (2.5 s); the rest is the child's start-up, which on a
    // loaded machine takes seconds. The bound says "not waited on", with room for that start-up.
    expect(r.ms, name).toBeLessThan(60_000);
  }
}

describe('every command with a store unreachable', () => {
  it('Postgres refusing connections: one line naming Postgres and DATABASE_URL, exit 3, not waited on', async () => {
    const results = await runAll(COMMANDS, () =>
      env({ DATABASE_URL: 'postgresql://postgres:pw@127.0.0.1:1/ledgerline' }),
    );
    expectOneLine(
      results,
      /^ServiceUnreachableError: Postgres at 127\.0\.0\.1:1 \(DATABASE_URL\) is unreachable: .*ECONNREFUSED.*; start Postgres at 127\.0\.0\.1:1 or set DATABASE_URL to one that runs$/,
    );
    // The password is never printed.
    for (const r of results) expect(r.stderr).not.toContain(':pw@');
  }, 600_000);

  it('Redis refusing connections: one line naming Redis and REDIS_URL, no stream of ioredis errors, exit 3, not waited on', async () => {
    const results = await runAll(REDIS_COMMANDS, () => env({ REDIS_URL: 'redis://127.0.0.1:1' }));
    expectOneLine(
      results,
      /^ServiceUnreachableError: Redis at 127\.0\.0\.1:1 \(REDIS_URL\) is unreachable: .*ECONNREFUSED.*; start Redis at 127\.0\.0\.1:1 or set REDIS_URL to one that runs$/,
    );
  }, 600_000);

  it('a store that accepts connections and never answers: named, not waited on forever', async () => {
    const sample = [['status'], ['accounts', 'list']];
    expectOneLine(
      await runAll(sample, () => env({ DATABASE_URL: `postgresql://postgres@127.0.0.1:${silentPort}/ledgerline` })),
      /^ServiceUnreachableError: Postgres at 127\.0\.0\.1:\d+ \(DATABASE_URL\) is unreachable: /,
    );
    expectOneLine(
      await runAll([['status'], ['worker']], () => env({ REDIS_URL: `redis://127.0.0.1:${silentPort}` })),
      /^ServiceUnreachableError: Redis at 127\.0\.0\.1:\d+ \(REDIS_URL\) is unreachable: /,
    );
  }, 600_000);
});
