import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startBackfill } from '../../src/app/services/backfill.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { coveredRanges } from '../../src/ingest/coverage/window-store.ts';
import { positionHorizon } from '../../src/streams/positions/endpoint.ts';
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

const DAY = 86_400_000;
const db = useTestDatabase('backfill');
let pipeline: Pipeline;

beforeAll(async () => {
  pipeline = await startPipeline({ databaseUrl: db.url });
});
afterAll(async () => {
  await pipeline?.close();
});

async function waitForWindows(ids: string[], timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const progress = await windowProgress(pipeline.runtime.pool, ids);
    if (progress.every((p) => p.done + p.failed === p.total)) return progress;
    if (Date.now() > deadline) throw new Error(`windows not finished: ${JSON.stringify(progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('backfill of all three streams', () => {
  it('ends with the database equal to the ground truth, and a second run changes nothing', async () => {
    const workers = pipeline.startWorkers();
    const now = Date.now();
    const from = now - 400 * DAY;
    const first = await startBackfill(pipeline.runtime, { account: 'demo', stream: 'all', from, to: now, now });
    expect(first.notes.join(' ')).toMatch(/positions start at the 3-month horizon/);
    const progress = await waitForWindows(first.windows.map((w) => w.id));
    expect(progress.every((p) => p.failed === 0)).toBe(true);

    const { pool } = pipeline.runtime;
    const { sim, accountId } = pipeline;
    const horizon = positionHorizon(now);
    const spot = await storedSpot(pool, accountId);
    expect(spot.length).toBeGreaterThanOrEqual(400);
    expect(spot).toEqual(truthSpot(sim));
    const transfers = await storedTransfers(pool, accountId);
    expect(transfers.length).toBeGreaterThan(100);
    expect(transfers).toEqual(truthTransfers(sim));
    const positions = await storedPositions(pool, accountId);
    expect(positions.length).toBeGreaterThan(50);
    expect(positions).toEqual(truthPositions(sim, horizon));

    // Coverage: one contiguous range per stream and scope.
    const spotCoverage = await coveredRanges(pool, { accountId, stream: 'spot', scope: '' });
    expect(spotCoverage).toEqual([{ start: from, end: now }]);

    // A second run re-reads nothing already complete: no job, no request.
    const before = await pool.query(`SELECT max(last_changed_at) AS t, count(*) AS n FROM spot_record`);
    sim.requestLog.clear();
    const second = await startBackfill(pipeline.runtime, { account: 'demo', stream: 'all', from, to: now, now });
    expect(second.enqueued).toBe(0);
    expect(second.windows).toEqual([]); // coverage is judged as intervals: nothing left to plan
    expect(second.alreadyDone).toBeGreaterThan(0);
    expect(sim.requestLog.list().filter((r) => r.path.startsWith('/api/'))).toHaveLength(0);

    // --refetch reads everything again and still changes no row.
    const third = await startBackfill(pipeline.runtime, {
      account: 'demo',
      stream: 'spot',
      from,
      to: now,
      now,
      refetch: true,
    });
    expect(third.enqueued).toBe(third.windows.length);
    await waitForWindows(third.windows.map((w) => w.id));
    const after = await pool.query(`SELECT max(last_changed_at) AS t, count(*) AS n FROM spot_record`);
    expect(after.rows[0]).toEqual(before.rows[0]);
    await workers.close();
  });
});
