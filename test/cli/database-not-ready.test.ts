import { readdirSync } from 'node:fs';
import path from 'node:path';

import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { dropDatabase, ensureDatabase } from '../../src/db/ensure-database.ts';
import { type CliResult, runCliLive } from '../helpers/cli.ts';
import { createMigratedDatabase, freshDatabaseUrl } from '../helpers/test-database.ts';
import { randomPrefix, TEST_REDIS_URL } from '../helpers/test-redis.ts';

// This build's migrations, oldest first: what a ready database has applied.
const MIGRATIONS = readdirSync(path.resolve(import.meta.dirname, '../../prisma/migrations'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
const LATEST = MIGRATIONS.at(-1)!;
const PREVIOUS = MIGRATIONS.at(-2)!;
const FUTURE = '29991231235959_from_a_newer_build';

// Every command that reads or writes the database, with the arguments it needs to get that far.
const DATABASE_COMMANDS: string[][] = [
  ['accounts', 'list'],
  ['accounts', 'remove', 'main'],
  ['status'],
  ['runs'],
  ['export', '--report', 'spot-ledger', '--account', 'main', '--from', '2026-01-01', '--to', '2026-01-31'],
  ['sync', '--account', 'main'],
  ['reconcile', '--account', 'main'],
  ['backfill', '--account', 'main', '--stream', 'spot', '--from', '2026-01-01', '--to', '2026-02-01'],
  ['subaccounts', 'list', '--account', 'main'],
  ['apikeys', 'list', '--account', 'main'],
  ['orders', 'cancel-all', '--account', 'main', '--category', 'SPOT'],
  ['prices', 'list'],
];
// Bad arguments, each with the line naming it: said before the database is, missing or not.
const BAD_ARGUMENTS: [string[], string][] = [
  [['backfill', '--account', 'main', '--stream', 'spot', '--from', 'yesterday'], 'ValidationError: --from: must be '],
  [
    ['reconcile', '--account', 'main', '--recount', 'sometimes'],
    'ValidationError: --recount: must be one of none, recent, all, edge (got "sometimes")',
  ],
  [
    ['export', '--report', 'no-such-report', '--account', 'main', '--from', '2026-01-01', '--to', '2026-01-31'],
    'ValidationError: report',
  ],
];
// The long-running processes: they must refuse before registering schedules or listening.
const PROCESSES: string[][] = [['worker'], ['web']];

const urls = {
  missing: freshDatabaseUrl('notready-missing'),
  empty: freshDatabaseUrl('notready-empty'),
  older: freshDatabaseUrl('notready-older'),
  newer: freshDatabaseUrl('notready-newer'),
  // Never created, like `missing`: the commands with bad arguments run against it.
  badArguments: freshDatabaseUrl('notready-badargs'),
};
const name = (url: string) => new URL(url).pathname.slice(1);
const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });

async function sql(url: string, text: string, values: unknown[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

interface Run extends CliResult {
  state: keyof typeof urls;
  command: string;
  prefix: string;
}

// What each state is tried with: the older and newer ones go through the same check as the
// rest, so one command and both processes show it; `migrate` cannot fix a newer database, so it
// must refuse it too rather than call it up to date.
const PLAN: [keyof typeof urls, string[][]][] = [
  ['missing', [...DATABASE_COMMANDS, ...PROCESSES]],
  ['empty', [...DATABASE_COMMANDS, ...PROCESSES]],
  ['older', [['status'], ...PROCESSES]],
  ['newer', [['status'], ['migrate'], ...PROCESSES]],
  ['badArguments', BAD_ARGUMENTS.map(([args]) => args)],
];
let runs: Run[] = [];

/**
 * Runs every command of the plan, three at a time (each is mostly start-up; all at once would
 * only queue on the shared cores), each with a queue prefix of its own to look at afterwards.
 */
async function runAll(): Promise<Run[]> {
  const queue = PLAN.flatMap(([state, commands]) => commands.map((args) => ({ state, args })));
  const done: Run[] = [];
  const lane = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const prefix = randomPrefix('notready').replaceAll(':', '-');
      const result = await runCliLive(
        next.args,
        {
          DATABASE_URL: urls[next.state],
          REDIS_URL: TEST_REDIS_URL,
          QUEUE_PREFIX: prefix,
          // Port 0: a web or worker that wrongly started would not collide with anything.
          WEB_PORT: '0',
          METRICS_PORT: '0',
          LEDGERLINE_WEB_TOKEN: 'a-web-token-of-at-least-thirty-two-chars',
        },
        // A process that serves instead of refusing is killed here (status null). Generous:
        // on busy shared cores a start-up alone has taken a minute.
        180_000,
      );
      done.push({ state: next.state, command: next.args.join(' '), prefix, ...result });
    }
  };
  await Promise.all([lane(), lane(), lane()]);
  return done.sort((a, b) => a.command.localeCompare(b.command));
}

beforeAll(async () => {
  await ensureDatabase(urls.empty);
  await Promise.all([createMigratedDatabase(urls.older), createMigratedDatabase(urls.newer)]);
  // Older: this build's last migration not applied. Newer: one applied that this build does not know.
  await sql(urls.older, 'DELETE FROM _prisma_migrations WHERE migration_name = $1', [LATEST]);
  await sql(
    urls.newer,
    `INSERT INTO _prisma_migrations (id, checksum, migration_name, finished_at, applied_steps_count)
     VALUES (gen_random_uuid()::text, 'not-a-checksum', $1, now(), 1)`,
    [FUTURE],
  );
  runs = await runAll();
}, 1_200_000);
afterAll(async () => {
  const keys = (await Promise.all(runs.map((r) => redis.keys(`${r.prefix}:*`)))).flat();
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  // `missing` too: a command that created it would fail the tests, not leave it behind.
  await Promise.all(Object.values(urls).map((url) => dropDatabase(url)));
});

/** Each run of `state`: exit 3, stdout empty, stderr exactly one line matching `line`, nothing in Redis. */
async function expectRefused(state: keyof typeof urls, line: RegExp): Promise<void> {
  const mine = runs.filter((r) => r.state === state);
  const seen = await Promise.all(
    mine.map(async (r) => {
      const lines = r.stderr.split('\n');
      return {
        command: r.command,
        status: r.status,
        stdout: r.stdout,
        stderrLines: lines.length,
        firstLine: lines[0],
        redisKeys: (await redis.keys(`${r.prefix}:*`)).length,
      };
    }),
  );
  expect(seen).toEqual(
    mine.map((r) => ({
      command: r.command,
      status: 3,
      stdout: '',
      stderrLines: 1,
      firstLine: expect.stringMatching(line) as unknown,
      redisKeys: 0,
    })),
  );
}

describe('a database that is not ready for this build', () => {
  it('missing: every command, the worker and web exit 3 with one line naming `ledgerline migrate`', async () => {
    await expectRefused(
      'missing',
      new RegExp(`^DatabaseNotReadyError: database ${name(urls.missing)} does not exist: run \`ledgerline migrate\`$`),
    );
  });

  it('empty (never migrated): every command, the worker and web exit 3 with one line naming `ledgerline migrate`', async () => {
    await expectRefused(
      'empty',
      new RegExp(`^DatabaseNotReadyError: database ${name(urls.empty)} is not migrated: run \`ledgerline migrate\`$`),
    );
  });

  it('at an older migration: one line naming both migrations and `ledgerline migrate`, exit 3', async () => {
    await expectRefused(
      'older',
      new RegExp(
        `^DatabaseNotReadyError: database ${name(urls.older)} is at migration ${PREVIOUS}, ` +
          `this build expects ${LATEST}: run \`ledgerline migrate\`$`,
      ),
    );
  });

  it('at a migration this build does not know: one line saying to upgrade ledgerline, exit 3, from migrate too', async () => {
    await expectRefused(
      'newer',
      new RegExp(
        `^DatabaseNotReadyError: database ${name(urls.newer)} is at migration ${FUTURE}, ` +
          `newer than this build \\(which expects ${LATEST}\\): upgrade ledgerline$`,
      ),
    );
  });

  it('a bad argument is named as such (exit 2) before the database is looked at, missing or not', async () => {
    const seen = runs
      .filter((r) => r.state === 'badArguments')
      .map((r) => ({ command: r.command, status: r.status, firstLine: r.stderr.split('\n')[0] }));
    expect(seen).toEqual(
      BAD_ARGUMENTS.map(([args, line]) => ({
        command: args.join(' '),
        status: 2,
        firstLine: expect.stringContaining(line) as unknown,
      })).sort((a, b) => a.command.localeCompare(b.command)),
    );
  });
});
