import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { JOB, QUEUE } from '../../jobs/definitions.ts';
import { startBackfill, type StartedBackfill } from '../../src/app/services/backfill.ts';
import { planAndEnqueueSync } from '../../src/app/services/plan-and-enqueue-sync.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { storedSpot, storedTransfers, truthSpot, truthTransfers } from '../helpers/ground-truth.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

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
    const sync = await planAndEnqueueSync(runtime, await runtime.accounts.getById(pipeline.accountId), { now: later });
    // Only the lookback and the new day are read, not the whole history again (in two windows
    // when a boundary of the stream's grid falls inside).
    const spotWindows = sync.windows.filter((w) => w.stream === 'spot');
    expect(spotWindows.length).toBeLessThanOrEqual(2);
    expect(spotWindows[0]!.start).toBe(now - DAY);
    expect(spotWindows.at(-1)!.end).toBe(later);
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

  it('reads again an earlier window that never finished, on demand and in the nightly flow', async () => {
    const { sim, runtime, accountId } = pipeline;
    const { pool } = runtime;
    // A window in the middle of the covered history fails, and its records are not there.
    async function breakWindow(): Promise<{ id: string; missing: number }> {
      const picked = await pool.query<{ id: string; start: Date; end: Date }>(
        `SELECT id, window_start AS start, window_end AS "end" FROM sync_window
          WHERE account_id = $1 AND stream = 'spot' AND status = 'done'
            AND window_end < (SELECT max(window_end) FROM sync_window WHERE stream = 'spot')
            AND EXISTS (SELECT 1 FROM spot_record r WHERE r.account_id = $1 AND r.ts >= window_start AND r.ts < window_end)
          ORDER BY random() LIMIT 1`,
        [accountId],
      );
      const window = picked.rows[0]!;
      await pool.query(`UPDATE sync_window SET status = 'failed', last_error = 'test', cursor = NULL WHERE id = $1`, [
        window.id,
      ]);
      const deleted = await pool.query(`DELETE FROM spot_record WHERE account_id = $1 AND ts >= $2 AND ts < $3`, [
        accountId,
        window.start,
        window.end,
      ]);
      return { id: window.id, missing: deleted.rowCount ?? 0 };
    }

    const first = await breakWindow();
    expect(first.missing).toBeGreaterThan(0);
    const sync = await planAndEnqueueSync(runtime, await runtime.accounts.getById(accountId), { now: sim.clock.now() });
    expect(sync.windows.map((w) => w.id)).toContain(first.id);
    await finished(sync);
    expect(await storedSpot(pool, accountId)).toEqual(truthSpot(sim));

    // The nightly flow's sync-account job does the same.
    const second = await breakWindow();
    await runtime.queues.get(QUEUE.sync).add(JOB.syncAccount, { accountId, runId: 'heal' }, { jobId: 'sync.heal' });
    for (let i = 0; ; i += 1) {
      const status = await pool.query(`SELECT status FROM sync_window WHERE id = $1`, [second.id]);
      if (status.rows[0].status === 'done') break;
      if (i > 300) throw new Error(`window ${second.id} not read again: ${status.rows[0].status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await storedSpot(pool, accountId)).toEqual(truthSpot(sim));
  });
});
