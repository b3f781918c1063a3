import type { ChildProcess } from 'node:child_process';

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startBackfill } from '../../src/app/services/backfill.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { positionHorizon } from '../../src/streams/positions/endpoint.ts';
import { exited, killSpawned, logged, spawnCli } from '../helpers/cli.ts';
import {
  storedFuturesLedger,
  storedMarginLedger,
  storedP2pLedger,
  storedPositions,
  storedSpot,
  storedTransfers,
  truthFuturesLedger,
  truthMarginLedger,
  truthP2pLedger,
  truthPositions,
  truthSpot,
  truthTransfers,
} from '../helpers/ground-truth.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';

const DAY = 86_400_000;
const RATE_FACTOR = 4;
/** The worker's connections carry this name, so the test ends them and no other. */
const WORKER_APP = 'll-worker-under-test';
const db = useTestDatabase('pgterminated');
let pipeline: Pipeline;
let admin: pg.Client;

beforeAll(async () => {
  // Enough pages per window (500 spot records a page at 4 requests/s) that the backfill runs for a
  // while: each termination lands on windows in flight.
  pipeline = await startPipeline({
    databaseUrl: db.url,
    rateFactor: RATE_FACTOR,
    simulator: { scale: { spotRecords: 12_000 } },
  });
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
});
afterAll(async () => {
  await killSpawned();
  await admin?.end();
  await pipeline?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits for `ready` to hold, polling; no time bound of its own (the test's timeout is the
 * backstop), but a worker that died fails it at once, with its last log lines.
 */
async function until(ready: () => Promise<boolean>, worker: ChildProcess, logs: () => string): Promise<void> {
  while (!(await ready())) {
    if (worker.exitCode !== null || worker.signalCode !== null) {
      throw new Error(`the worker died (exit ${worker.exitCode ?? worker.signalCode}):\n${logs().slice(-3000)}`);
    }
    await sleep(50);
  }
}

/** As an administrator (or a failover) does: every backend of the worker, ended at once. */
async function terminateWorkerBackends(): Promise<number> {
  const ended = await admin.query<{ n: number }>(
    `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = $1`,
    [WORKER_APP],
  );
  return ended.rows[0]!.n;
}

async function workerBackends(): Promise<number> {
  const found = await admin.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`,
    [WORKER_APP],
  );
  return found.rows[0]!.n;
}

describe('a worker whose database connections are terminated', () => {
  it('survives pg_terminate_backend of all its backends three times mid-backfill: every window done, no record lost or duplicated in any stream', async () => {
    const { runtime, sim, accountId } = pipeline;
    const now = Date.now();
    const from = now - 400 * DAY;
    const started = await startBackfill(runtime, { account: 'demo', stream: 'all', from, to: now, now });
    const ids = started.windows.map((w) => w.id);
    // Pages read by every window so far: it moves while the worker works.
    const pagesRead = async () =>
      (await windowProgress(runtime.pool, ids)).reduce((sum, p) => sum + p.donePages + p.openPages, 0);
    const allDone = async () => (await windowProgress(runtime.pool, ids)).every((p) => p.done === p.total);

    const databaseUrl = new URL(db.url);
    databaseUrl.searchParams.set('application_name', WORKER_APP);
    const worker = spawnCli(['worker'], {
      DATABASE_URL: databaseUrl.toString(),
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: runtime.prefix,
      EXCHANGE_RATE_FACTOR: String(RATE_FACTOR),
      WORKER_CONCURRENCY: '4',
      LOG_LEVEL: 'info',
    });
    let logs = '';
    worker.stderr!.on('data', (chunk: Buffer) => (logs += chunk.toString('utf8')));
    await logged(worker, 'worker started');

    let pages = await pagesRead();
    for (let round = 1; round <= 3; round += 1) {
      // The worker is at work (it read pages since the last round) and holds connections.
      await until(
        async () => (await pagesRead()) !== pages && (await workerBackends()) > 0,
        worker,
        () => logs,
      );
      expect(await allDone()).toBe(false);
      expect(await terminateWorkerBackends()).toBeGreaterThan(0);
      pages = await pagesRead();
      expect(worker.exitCode).toBeNull();
    }

    // It goes on: every window is done, by this same process.
    await until(allDone, worker, () => logs);
    expect(worker.exitCode).toBeNull();
    expect(logs).not.toMatch(/Unhandled 'error' event/);
    expect(logs).toMatch(/database connection lost/);
    const failed = await runtime.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM sync_window WHERE id = ANY($1) AND status <> 'done'`,
      [ids],
    );
    expect(failed.rows[0]!.n).toBe(0);
    worker.kill('SIGTERM');
    expect(await exited(worker)).toBe(0);

    // Against the simulator's truth, all six streams: nothing lost, nothing twice.
    const { pool } = runtime;
    const spot = await storedSpot(pool, accountId);
    expect(spot.length).toBe(sim.truth('spot').length);
    expect(spot).toEqual(truthSpot(sim));
    expect(await storedTransfers(pool, accountId)).toEqual(truthTransfers(sim));
    expect(await storedPositions(pool, accountId)).toEqual(truthPositions(sim, positionHorizon(now)));
    expect(await storedFuturesLedger(pool, accountId)).toEqual(truthFuturesLedger(sim));
    expect(await storedMarginLedger(pool, accountId)).toEqual(truthMarginLedger(sim));
    expect(await storedP2pLedger(pool, accountId)).toEqual(truthP2pLedger(sim));
  }, 600_000);
});
