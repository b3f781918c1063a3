import { afterAll, beforeAll, describe, expect, it } from 'vitest';

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
const RATE_FACTOR = 3;
const db = useTestDatabase('twoworkers');
let pipeline: Pipeline;

beforeAll(async () => {
  pipeline = await startPipeline({
    databaseUrl: db.url,
    rateFactor: RATE_FACTOR,
    simulator: { scale: { spotRecords: 6_000 } },
  });
});
afterAll(async () => {
  await killSpawned();
  await pipeline?.close();
});

describe('two worker processes', () => {
  it('finish one backfill together with the ground-truth result and no HTTP 429', async () => {
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: pipeline.runtime.prefix,
      EXCHANGE_RATE_FACTOR: String(RATE_FACTOR),
      WORKER_CONCURRENCY: '4',
      LOG_LEVEL: 'info',
    };
    const workers = [spawnCli(['worker'], env), spawnCli(['worker'], env)];
    // Both must be listening before the work is queued, or the first to start could take all of it.
    const ready = workers.map((worker) => logged(worker, 'worker started'));
    const completedBy = workers.map(() => 0);
    // Logs go to stderr; a worker prints nothing for a reader, so its stdout stays empty.
    let stdout = '';
    workers.forEach((worker, i) => {
      worker.stderr?.on('data', (chunk: Buffer) => {
        completedBy[i]! += chunk.toString().split('ingest window completed').length - 1;
      });
      worker.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    });
    await Promise.all(ready);
    const now = Date.now();
    const { runtime } = pipeline;
    const started = await startBackfill(runtime, {
      account: 'demo',
      stream: 'all',
      from: now - 400 * DAY,
      to: now,
      now,
    });
    const ids = started.windows.map((w) => w.id);
    const deadline = Date.now() + 120_000;
    for (;;) {
      const progress = await windowProgress(pipeline.runtime.pool, ids);
      expect(progress.every((p) => p.failed === 0)).toBe(true);
      if (progress.every((p) => p.done === p.total)) break;
      if (Date.now() > deadline) throw new Error(`not finished: ${JSON.stringify(progress)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    for (const worker of workers) worker.kill('SIGTERM');
    expect(await Promise.all(workers.map(exited))).toEqual([0, 0]);

    // Both processes took part.
    expect(completedBy[0]).toBeGreaterThan(0);
    expect(completedBy[1]).toBeGreaterThan(0);
    expect(completedBy[0]! + completedBy[1]!).toBe(ids.length);
    expect(stdout).toBe('');
    const { pool } = pipeline.runtime;
    const { sim, accountId } = pipeline;
    expect(await storedSpot(pool, accountId)).toEqual(truthSpot(sim));
    expect(await storedTransfers(pool, accountId)).toEqual(truthTransfers(sim));
    expect(await storedPositions(pool, accountId)).toEqual(truthPositions(sim, positionHorizon(now)));

    const counters = Object.values(sim.counters.get());
    const served = counters.reduce((sum, c) => sum + c.served, 0);
    const limited = counters.reduce((sum, c) => sum + c.rateLimited, 0);
    expect(served).toBeGreaterThan(100);
    expect(limited).toBe(0);
  }, 180_000);
});
