import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { enqueueWindows } from '../../jobs/ingest/enqueue-windows.ts';
import { startBackfill } from '../../src/app/services/backfill.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { coveredRanges, ensureWindows, type WindowKey } from '../../src/ingest/coverage/window-store.ts';
import { planRetries } from '../../src/ingest/retry-plan.ts';
import type { Stream } from '../../src/streams/registry.ts';
import { storedSpot, storedTransfers, truthSpot, truthTransfers } from '../helpers/ground-truth.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const DAY = 86_400_000;
const db = useTestDatabase('grid_windows');
let pipeline: Pipeline;

beforeAll(async () => {
  pipeline = await startPipeline({ databaseUrl: db.url });
});
afterAll(async () => {
  await pipeline?.close();
});

async function waitForWindows(ids: string[], timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const progress = await windowProgress(pipeline.runtime.pool, ids);
    if (progress.every((p) => p.done + p.failed === p.total)) return progress;
    if (Date.now() > deadline) throw new Error(`windows not finished: ${JSON.stringify(progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Windows cut from `from` the way the planner did before the grid: whole spans from --from on. */
function legacyWindows(accountId: string, stream: Stream, spanDays: number, from: number, to: number): WindowKey[] {
  const windows: WindowKey[] = [];
  for (let start = from; start < to; start += spanDays * DAY) {
    windows.push({ accountId, stream, scope: '', start, end: Math.min(start + spanDays * DAY, to) });
  }
  return windows;
}

const timeRange = (query: string) => {
  const params = new URLSearchParams(query);
  return { start: Number(params.get('startTime')), end: Number(params.get('endTime')) };
};

describe('windows on a fixed grid', () => {
  it('extending a covered year backwards by 6 months requests only the new 6 months, old windows counting as coverage', async () => {
    const workers = pipeline.startWorkers();
    const { runtime, sim, accountId } = pipeline;
    const now = Date.now();
    // A year covered by windows of an installation before the grid: cut from an odd --from.
    const yearFrom = now - 365 * DAY - 12_345;
    const legacy = await ensureWindows(runtime.pool, [
      ...legacyWindows(accountId, 'spot', 30, yearFrom, now),
      ...legacyWindows(accountId, 'transfers', 7, yearFrom, now),
    ]);
    await enqueueWindows(runtime.queues, runtime.pool, legacy);
    expect((await waitForWindows(legacy.map((w) => w.id))).every((p) => p.failed === 0)).toBe(true);

    sim.requestLog.clear();
    const from = yearFrom - 182 * DAY;
    const spot = await startBackfill(runtime, { account: 'demo', stream: 'spot', from, to: now, now });
    const transfers = await startBackfill(runtime, { account: 'demo', stream: 'transfers', from, to: now, now });
    await waitForWindows([...spot.windows, ...transfers.windows].map((w) => w.id));

    // Only the 6 new months are planned and read: every window and every request lies in them.
    for (const window of [...spot.windows, ...transfers.windows]) {
      expect(window.start).toBeGreaterThanOrEqual(from);
      expect(window.end).toBeLessThanOrEqual(yearFrom);
    }
    // The new months exactly, one window per grid cell they touch (a cut cell at each end).
    expect(spot.windows[0]!.start).toBe(from);
    expect(spot.windows.at(-1)!.end).toBe(yearFrom);
    spot.windows.slice(1).forEach((w, i) => expect(w.start).toBe(spot.windows[i]!.end));
    expect(spot.windows.length).toBeLessThanOrEqual(Math.ceil(182 / 30) + 1);
    expect(spot.alreadyDone).toBeGreaterThanOrEqual(12);
    const requests = sim.requestLog.list().filter((r) => r.path.startsWith('/api/'));
    const history = requests.filter((r) => /spot-record|all-sub-deposit-withdrawal/.test(r.path));
    expect(history.length).toBeGreaterThan(0);
    for (const request of history) {
      const range = timeRange(request.query);
      expect(range.start).toBeGreaterThanOrEqual(from);
      expect(range.end).toBeLessThan(yearFrom);
    }
    // The legacy year alone took more requests than the half year now (spot is 1/s: that is the cost).
    const spotRequests = history.filter((r) => r.path.includes('spot-record')).length;
    console.log(
      `grid: extending 12 covered months by 6: ${spotRequests} spot, ${history.length - spotRequests} transfer requests`,
    );

    expect(await coveredRanges(runtime.pool, { accountId, stream: 'spot', scope: '' })).toEqual([
      { start: from, end: now },
    ]);
    expect(await storedSpot(runtime.pool, accountId)).toEqual(
      truthSpot(sim).filter((line) => Number(line.split('|').at(-1)) >= from),
    );
    expect(await storedTransfers(runtime.pool, accountId)).toEqual(truthTransfers(sim, from));

    // A second extension by another --from reads nothing already covered, and a backfill of the
    // whole range again plans no window at all.
    sim.requestLog.clear();
    const again = await startBackfill(runtime, { account: 'demo', stream: 'spot', from: from + 3 * DAY, to: now, now });
    expect(again.windows).toEqual([]);
    expect(again.enqueued).toBe(0);
    expect(sim.requestLog.list().filter((r) => r.path.includes('spot-record'))).toHaveLength(0);
    await workers.close();
  });

  it('a retry settles an unfinished window that other done windows cover, instead of reading it', async () => {
    const { runtime, accountId } = pipeline;
    const now = Date.now();
    // An old failed window inside the covered stretch (its range since read by other windows).
    const [stale] = await ensureWindows(runtime.pool, [
      { accountId, stream: 'spot', scope: '', start: now - 100 * DAY + 7, end: now - 80 * DAY + 7 },
    ]);
    await runtime.pool.query(`UPDATE sync_window SET status = 'failed', last_error = 'old' WHERE id = $1`, [stale!.id]);
    const retries = await planRetries(runtime.pool, accountId, ['spot'], now);
    expect(retries.settled).toBe(1);
    expect(retries.windows.map((w) => w.id)).not.toContain(stale!.id);
    const row = await runtime.pool.query(`SELECT status FROM sync_window WHERE id = $1`, [stale!.id]);
    expect(row.rows[0].status).toBe('done');
  });
});
