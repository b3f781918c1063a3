import type { ChildProcess } from 'node:child_process';

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createRuntime } from '../../jobs/composition/create-runtime.ts';
import type { Runtime } from '../../jobs/runtime.ts';
import { loadConfig } from '../../src/config/config.ts';
import { migrateDatabase } from '../../src/db/migrations.ts';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import { exited, killSpawned, printed, spawnCli } from '../helpers/cli.ts';
import { fullDisk } from '../helpers/database-write-block.ts';
import { freshDatabaseUrl } from '../helpers/test-database.ts';
import { randomPrefix, TEST_REDIS_URL } from '../helpers/test-redis.ts';

const DAY = 86_400_000;
/** Generous: the bound is that it ends at all, not how fast (a full disk once hung to the retry bound). */
const EXIT_WITHIN_MS = 60_000;
/** The command's sessions carry this name, so the test counts them and no other. */
const COMMAND_APP = 'll-backfill-under-test';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Issue 43 item 4: with the database's tablespace full to the byte, SIGTERM to a backfill printed a
 * 20-line Prisma stack (P2039: the interrupted run's record refused). An interrupted command says
 * one line, `interrupted: ...`, naming why its run is not in the run history; its in-process worker
 * shuts down without a stack either.
 */
describe('a backfill interrupted while its database is full to the byte', () => {
  const url = freshDatabaseUrl('fullintr');
  const prefix = randomPrefix('fullintr').replaceAll(':', '-');
  const way = fullDisk();
  let sim: RunningSimulator;
  let planner: Runtime | undefined;
  let admin: pg.Client | undefined;
  const commandUrl = (() => {
    const named = new URL(url);
    named.searchParams.set('application_name', COMMAND_APP);
    return named.toString();
  })();
  async function commandSessions(): Promise<number> {
    const found = await admin!.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`,
      [COMMAND_APP],
    );
    return found.rows[0]!.n;
  }

  beforeAll(async () => {
    await way.create(url);
    await migrateDatabase(url);
    sim = await startSimulator({ scale: 'tiny' });
    // Each answer takes a while: the backfill is still at work when the disk fills.
    sim.faults.set({ latencyMs: 250 });
    const config = loadConfig({ DATABASE_URL: url, REDIS_URL: TEST_REDIS_URL, NODE_ENV: 'test', LOG_LEVEL: 'silent' });
    planner = createRuntime(config, { prefix });
    await planner.accounts.add({
      name: 'main',
      baseUrl: sim.url,
      ...sim.demo,
      isBrokerParent: true,
      isUnifiedAccount: true,
    });
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  }, 120_000);
  afterAll(async () => {
    await killSpawned();
    await admin?.end();
    await way.unblock().catch(() => undefined);
    const keys = await planner?.redis.keys(`${prefix}:*`);
    if (keys && keys.length > 0) await planner!.redis.del(...keys);
    await planner?.close();
    await sim?.close();
    await way.remove();
  });

  /**
   * Starts a backfill with its worker, fills the disk to the byte under it, lets the worker meet it
   * for `meetMs`, then sends `signal`; all the command printed.
   */
  async function interruptedOnAFullDisk(
    stream: string,
    signal: NodeJS.Signals,
    fill: { initFile: 'removed' | 'kept'; meetMs: number },
  ): Promise<{ status: number | null; output: string }> {
    const child: ChildProcess = spawnCli(
      ['backfill', '--account', 'main', '--stream', stream, '--from', String(Date.now() - 365 * DAY), '--with-worker'],
      { DATABASE_URL: commandUrl, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix, WORKER_CONCURRENCY: '1' },
    );
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    try {
      await printed(child, `backfill main ${stream}`, 60_000);
      // The worker at work, the command's pool and Prisma holding sessions opened while the disk had room.
      for (const deadline = Date.now() + 30_000; (await commandSessions()) < 3;) {
        if (Date.now() > deadline)
          throw new Error(`the command opened ${await commandSessions()} sessions:\n${output}`);
        await sleep(50);
      }
      expect(child.exitCode, output).toBeNull();
      await way.block();
      way.fillToTheByte({ initFile: fill.initFile });
      await sleep(fill.meetMs);
      expect(child.exitCode, `ended before the signal:\n${output}`).toBeNull();
      child.kill(signal);
      const status = await Promise.race([exited(child), sleep(EXIT_WITHIN_MS).then(() => 'hung' as const)]);
      if (status === 'hung') throw new Error(`still running ${EXIT_WITHIN_MS} ms after ${signal}:\n${output}`);
      return { status, output };
    } finally {
      child.kill('SIGKILL');
      await way.unblock();
    }
  }

  function expectOneInterruptedLine(run: { status: number | null; output: string }): void {
    const lines = run.output.split('\n');
    const interrupted = lines.filter((line) => /^interrupted/.test(line));
    expect(interrupted, run.output).toHaveLength(1);
    // The run's record was refused (its table needs a page the disk has not): said in that line.
    expect(interrupted[0]).toMatch(
      /^interrupted: \d+ of \d+ windows done; run the same command to resume \(not in the run history: DATABASE CANNOT WRITE \(SQLSTATE \w+\): .+\)$/,
    );
    expect(interrupted[0]).toMatch(/No space left on device/);
    // No stack, no Prisma wrapper: not from the command, not from its worker shutting down.
    expect(
      lines.filter((line) => /^\s+at /.test(line)),
      run.output,
    ).toEqual([]);
    expect(run.output).not.toMatch(/P2039|PrismaClient|Invalid `/);
    // Interrupted, as a shell reports a process SIGINT ended (src/cli/exit-codes.ts).
    expect(run.status).toBe(130);
  }

  it('SIGTERM after the worker met the full disk (writes refused): one interrupted line naming DATABASE CANNOT WRITE, no stack', async () => {
    // The init file kept: new sessions start, so nothing but the signal ends the command (the
    // worker's jobs retry for minutes), and the run's record is refused for want of a page.
    const run = await interruptedOnAFullDisk('spot', 'SIGTERM', { initFile: 'kept', meetMs: 3_000 });
    expectOneInterruptedLine(run);
    expect(run.output).toMatch(/\(SQLSTATE 53100\): could not extend file .*: No space left on device\)$/m);
  }, 180_000);

  it('SIGINT (Ctrl-C) with new sessions refused too (init file gone): the same one line, no stack', async () => {
    // At once: a session the command opened from here on would be refused at its start, which ends
    // it by itself (in a one-line DATABASE CANNOT WRITE of its own) before the signal.
    expectOneInterruptedLine(await interruptedOnAFullDisk('transfers', 'SIGINT', { initFile: 'removed', meetMs: 200 }));
  }, 180_000);
});
