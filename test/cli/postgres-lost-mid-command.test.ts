import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AccountService } from '../../src/accounts/account-service.ts';
import { loadConfig } from '../../src/config/config.ts';
import { dropDatabase } from '../../src/db/ensure-database.ts';
import { createPrisma } from '../../src/db/prisma.ts';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import { exited, killSpawned, printed, spawnCli } from '../helpers/cli.ts';
import { CuttableRelay } from '../helpers/cuttable-relay.ts';
import { createMigratedDatabase, freshDatabaseUrl } from '../helpers/test-database.ts';
import { randomPrefix, TEST_REDIS_URL } from '../helpers/test-redis.ts';

const urls = { cut: freshDatabaseUrl('pglost-cut'), dropped: freshDatabaseUrl('pglost-dropped') };
let sim: RunningSimulator;
let relay: CuttableRelay;
const prefixes: string[] = [];

/** A migrated database with the simulator's demo account registered as `main`. */
async function prepare(url: string): Promise<void> {
  await createMigratedDatabase(url);
  const prisma = createPrisma(url);
  try {
    await new AccountService(prisma, loadConfig({ DATABASE_URL: url, NODE_ENV: 'test' }).masterKey).add({
      name: 'main',
      baseUrl: sim.url,
      apiKey: sim.demo.apiKey,
      secretKey: sim.demo.secretKey,
      passphrase: sim.demo.passphrase,
      uid: sim.demo.uid,
      isBrokerParent: true,
      isUnifiedAccount: true,
    });
  } finally {
    await prisma.$disconnect();
  }
}

beforeAll(async () => {
  sim = await startSimulator({ scale: 'tiny' });
  await Promise.all([prepare(urls.cut), prepare(urls.dropped)]);
  const direct = new URL(urls.cut);
  relay = await CuttableRelay.start(direct.hostname, Number(direct.port || 5432));
}, 120_000);
afterAll(async () => {
  await killSpawned();
  await relay?.close();
  await sim?.close();
  await Promise.all(Object.values(urls).map((url) => dropDatabase(url)));
  const redis = new Redis(TEST_REDIS_URL);
  for (const prefix of prefixes) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  redis.disconnect();
});

/**
 * Starts a backfill with no worker (so it only watches its windows, polling Postgres), waits for
 * its plan line, runs `lose` and returns how the command ended.
 */
async function backfillLosing(databaseUrl: string, lose: () => Promise<void> | void, withWorker = false) {
  const prefix = randomPrefix('pglost').replaceAll(':', '-');
  prefixes.push(prefix);
  const child = spawnCli(
    [
      'backfill',
      '--account',
      'main',
      '--stream',
      'spot',
      '--from',
      '2026-01-01',
      '--to',
      '2026-03-01',
      ...(withWorker ? ['--with-worker'] : []),
    ],
    { DATABASE_URL: databaseUrl, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix },
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  await printed(child, 'enqueued', 60_000);
  await lose();
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const status = await exited(child);
  clearTimeout(timer);
  const lines = stderr.trim().split('\n');
  return {
    status,
    planned: /\d+ windows, \d+ already complete, \d+ enqueued/.test(stdout),
    // The progress view's lines come first (it draws on stderr); the error is the last line.
    lastLine: lines.at(-1),
    otherLines: lines.slice(0, -1).filter((line) => !/^spot \d+\/\d+ windows/.test(line)),
    // Nothing with a stack, on either stream (a worker's JSON log line of the lost connection).
    stacks: `${stdout}\n${stderr}`.split('\n').filter((line) => /\bat .+:\d+:\d+|"stack"/.test(line)),
  };
}

describe('Postgres lost while a command runs', () => {
  it('backfill with the server gone: exit 3, one line naming Postgres and DATABASE_URL, no stack', async () => {
    const ended = await backfillLosing(relay.relayed(urls.cut), () => relay.cut());
    expect(ended).toEqual({
      status: 3,
      planned: true,
      lastLine: expect.stringMatching(
        /^ServiceUnreachableError: Postgres at 127\.0\.0\.1:\d+ \(DATABASE_URL\) is unreachable: \S/,
      ) as unknown,
      otherLines: [],
      stacks: [],
    });
  }, 120_000);

  it('backfill --with-worker with the server gone: exit 3, the one line, no JSON log line with a stack before it', async () => {
    relay.restore();
    // As a crash or a fast shutdown ends them: each session is told (57P01), then the server is gone.
    const ended = await backfillLosing(
      relay.relayed(urls.cut),
      async () => {
        const admin = new pg.Client({ connectionString: urls.cut });
        await admin.connect();
        try {
          await admin.query(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
          );
        } finally {
          await admin.end();
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
        relay.cut();
      },
      true,
    );
    expect(ended).toMatchObject({
      status: 3,
      planned: true,
      lastLine: expect.stringMatching(
        /^ServiceUnreachableError: Postgres at 127\.0\.0\.1:\d+ \(DATABASE_URL\) is unreachable: \S/,
      ) as unknown,
      stacks: [],
    });
  }, 120_000);

  it('backfill with its database dropped: exit 3, one line naming `ledgerline migrate`, no stack', async () => {
    const ended = await backfillLosing(urls.dropped, () => dropDatabase(urls.dropped));
    expect(ended).toEqual({
      status: 3,
      planned: true,
      lastLine: expect.stringMatching(
        /^DatabaseNotReadyError: database ll_pglostdropped_[0-9a-f]+ does not exist: run `ledgerline migrate`$/,
      ) as unknown,
      otherLines: [],
      stacks: [],
    });
  }, 120_000);
});
