import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackfill, type StartedBackfill } from '../../jobs/ingest/backfill.ts';
import { startSync } from '../../jobs/ingest/start-sync.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { startPipeline, type Pipeline } from '../helpers/pipeline.ts';
import { storedTransfers, truthTransfers } from '../helpers/ground-truth.ts';

const DAY = 86_400_000;
const db = useTestDatabase('incsync');
let pipeline: Pipeline;

beforeAll(async () => {
  pipeline = await startPipeline({ databaseUrl: db.url });
  pipeline.startWorkers();
});
afterAll(async () => {
  await pipeline?.close();
});

async function finished(started: StartedBackfill): Promise<void> {
  const ids = started.windows.map((w) => w.id);
  for (;;) {
    const progress = await windowProgress(pipeline.runtime.pool, ids);
    if (progress.some((p) => p.failed > 0)) throw new Error(`failed windows: ${JSON.stringify(progress)}`);
    if (progress.every((p) => p.done === p.total)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function transferRows() {
  const result = await pipeline.runtime.pool.query<{ tx_id: string; type: string; status: string; n: number }>(
    `SELECT tx_id, type, status::text, count(*) OVER (PARTITION BY tx_id, type)::int AS n FROM broker_transfer`,
  );
  return result.rows;
}

describe('incremental sync', () => {
  it('lands late changes as updates in place: settled transfers keep their row and get their new status', async () => {
    const { sim, runtime } = pipeline;
    const now = sim.clock.now();
    await finished(
      await startBackfill(runtime, { account: 'demo', stream: 'all', from: now - 400 * DAY, to: now, now }),
    );
    const before = await transferRows();
    const pendingBefore = before.filter((r) => r.status === 'pending');
    expect(pendingBefore.length).toBeGreaterThan(0);

    // A day and a half later on the exchange: pending records settle, their ts moves to the settle time.
    const later = sim.clock.advance(1.5 * DAY);
    const sync = await startSync(runtime, { accountId: pipeline.accountId, now: later });
    // Only the lookback and the new day are read, not the whole history again.
    const spotWindows = sync.windows.filter((w) => w.stream === 'spot');
    expect(spotWindows.length).toBe(1);
    expect(spotWindows[0]!.start).toBe(now - DAY);
    const transferWindows = sync.windows.filter((w) => w.stream === 'transfers');
    expect(transferWindows[0]!.start).toBe(now - 2 * DAY);
    await finished(sync);

    const after = await transferRows();
    expect(after.every((r) => r.n === 1)).toBe(true); // never a duplicate
    const byKey = new Map(after.map((r) => [`${r.tx_id}|${r.type}`, r.status]));
    for (const row of before) expect(byKey.has(`${row.tx_id}|${row.type}`)).toBe(true); // nothing lost
    const settled = pendingBefore.filter((r) => byKey.get(`${r.tx_id}|${r.type}`) !== 'pending');
    expect(settled.length).toBeGreaterThan(0);
    // The stored copy equals the exchange's current state, statuses and times included.
    expect(await storedTransfers(runtime.pool, pipeline.accountId)).toEqual(truthTransfers(sim));
  });
});
