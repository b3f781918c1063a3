import type { ChildProcess } from 'node:child_process';

import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { QUEUE } from '../../jobs/definitions.ts';
import { startBackfill } from '../../src/app/services/backfill.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { positionHorizon } from '../../src/streams/positions/endpoint.ts';
import { exited, killSpawned, logged, spawnCli } from '../helpers/cli.ts';
import {
  storedPositions,
  storedSpot,
  storedTransfers,
  truthPositions,
  truthSpot,
  truthTransfers,
} from '../helpers/ground-truth.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';

const DAY = 86_400_000;
const RATE_FACTOR = 4;
const db = useTestDatabase('crash');
let pipeline: Pipeline;
let env: Record<string, string>;

beforeAll(async () => {
  // Enough pages per window (500 records a page, 4 spot requests/s) that kills land mid-window.
  pipeline = await startPipeline({
    databaseUrl: db.url,
    rateFactor: RATE_FACTOR,
    simulator: { scale: { spotRecords: 12_000 } },
  });
  env = {
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: pipeline.runtime.prefix,
    EXCHANGE_RATE_FACTOR: String(RATE_FACTOR),
    WORKER_LOCK_DURATION_MS: '1500',
    // A killed worker's in-flight requests hold their rate slots for the request timeout.
    EXCHANGE_TIMEOUT_MS: '1500',
    WORKER_CONCURRENCY: '4',
  };
});
afterAll(async () => {
  await killSpawned();
  await pipeline?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A small seeded generator, so a failing run can be replayed. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('crash safety', () => {
  it('survives SIGKILL of the worker at random moments: no loss, no duplicate', async () => {
    const now = Date.now();
    const from = now - 400 * DAY;
    const { runtime } = pipeline;
    const started = await startBackfill(runtime, { account: 'demo', stream: 'all', from, to: now, now });
    const ids = started.windows.map((w) => w.id);
    const next = random(20261122);

    let kills = 0;
    let killsDuringWork = 0;
    while (kills < 12) {
      const worker: ChildProcess = spawnCli(['worker'], { ...env, LOG_LEVEL: 'info' });
      // Kill at a random moment of its work, however long it took to start.
      await logged(worker, 'worker started');
      await sleep(150 + Math.floor(next() * 900));
      const before = await windowProgress(pipeline.runtime.pool, ids);
      worker.kill('SIGKILL');
      await exited(worker);
      kills += 1;
      if (before.some((p) => p.done < p.total)) killsDuringWork += 1;
      const after = await windowProgress(pipeline.runtime.pool, ids);
      if (after.every((p) => p.done === p.total)) break;
    }
    // Every kill hit a backfill still in progress.
    expect(killsDuringWork).toBeGreaterThanOrEqual(10);

    // A last worker finishes. A window whose job lost its worker more than
    // maxStalledCount times is marked failed; once the queue is idle, the
    // operator's rerun of the backfill resumes it from its cursor.
    const last = spawnCli(['worker'], { ...env, LOG_LEVEL: 'info' });
    const ready = logged(last, 'worker started');
    const queue = new Queue(QUEUE.ingest, { prefix: runtime.prefix, connection: pipeline.runtime.redis });
    const deadline = Date.now() + 150_000;
    let idlePolls = 0;
    try {
      for (;;) {
        const progress = await windowProgress(pipeline.runtime.pool, ids);
        if (progress.every((p) => p.done === p.total)) break;
        const counts = await queue.getJobCounts('active', 'waiting', 'delayed', 'prioritized');
        idlePolls = Object.values(counts).every((n) => n === 0) ? idlePolls + 1 : 0;
        // Idle on two polls in a row: a failure just recorded in Redis has reached its window too.
        if (idlePolls >= 2) {
          idlePolls = 0;
          const stranded = await pipeline.runtime.pool.query(
            `SELECT count(*)::int AS n FROM sync_window WHERE id = ANY($1) AND status = 'running'`,
            [ids],
          );
          // An idle queue never leaves a window "running": it is done or failed.
          expect(stranded.rows[0].n).toBe(0);
          await startBackfill(runtime, { account: 'demo', stream: 'all', from, to: now, now });
        }
        if (Date.now() > deadline) {
          const stuck = await pipeline.runtime.pool.query(
            `SELECT stream, status, cursor, pages, attempts, last_error FROM sync_window WHERE status <> 'done'`,
          );
          throw new Error(`not finished: ${JSON.stringify(progress)} ${JSON.stringify(stuck.rows)}`);
        }
        await sleep(250);
      }
    } finally {
      await queue.close();
    }
    // Stop it only once it runs, so SIGTERM meets its shutdown handler.
    await ready;
    last.kill('SIGTERM');
    expect(await exited(last)).toBe(0);

    const { pool } = pipeline.runtime;
    const { sim, accountId } = pipeline;
    const spot = await storedSpot(pool, accountId);
    expect(spot.length).toBe(sim.truth('spot').length);
    expect(spot).toEqual(truthSpot(sim));
    expect(await storedTransfers(pool, accountId)).toEqual(truthTransfers(sim));
    expect(await storedPositions(pool, accountId)).toEqual(truthPositions(sim, positionHorizon(now)));
    // Some windows were taken over after a kill and went on from their stored cursor.
    const resumed = await pool.query(`SELECT count(*)::int AS n FROM sync_window WHERE attempts > 1 AND pages > 1`);
    expect(resumed.rows[0].n).toBeGreaterThan(0);
  }, 300_000);
});
