import { describe, expect, it } from 'vitest';

import { startBackfill, type StartedBackfill } from '../../src/app/services/backfill.ts';
import { gridCell } from '../../src/exchange/paging/window-planner.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { runReconciliation } from '../../src/reconcile/run-reconciliation.ts';
import { historyPositionEndpoint, positionHorizon } from '../../src/streams/positions/endpoint.ts';
import { usePipeline } from '../helpers/pipeline.ts';

const DAY = 86_400_000;
const file = usePipeline('poshorizon', { simulatorClock: true, workers: false });

async function settled(started: StartedBackfill): Promise<void> {
  const ids = started.windows.map((w) => w.id);
  for (const deadline = Date.now() + 60_000; ;) {
    const progress = await windowProgress(file.pipeline.runtime.pool, ids);
    if (progress.every((p) => p.done + p.failed === p.total)) return;
    if (Date.now() > deadline) throw new Error(`not settled: ${JSON.stringify(progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function positionWindows(ids: string[]) {
  const result = await file.pipeline.runtime.pool.query<{ start: string; status: string; last_error: string | null }>(
    `SELECT (extract(epoch from window_start) * 1000)::bigint::text AS start, status::text, last_error
       FROM sync_window WHERE id = ANY($1::uuid[]) AND stream = 'positions' ORDER BY scope`,
    [ids],
  );
  return result.rows;
}

describe('positions windows read after the horizon moved past their start', () => {
  it('record the start they were really read from, and reconciliation agrees with the exchange', async () => {
    const { sim, runtime, accountId } = file.pipeline;
    // The workers stay down two days, so the windows' first two days pass the horizon unread. On
    // the dates where the grid cuts the range within those days, that older piece would be wholly
    // lost (the case below): move the exchange's clock past such a cut first, so this case is met
    // on any date (scripts/any-date.sh).
    const cut = gridCell(historyPositionEndpoint, positionHorizon(sim.clock.now())).end;
    if (cut - positionHorizon(sim.clock.now()) <= 3 * DAY)
      sim.clock.advance(cut - positionHorizon(sim.clock.now()) + DAY);
    const planned = sim.clock.now();
    const started = await startBackfill(runtime, {
      account: 'demo',
      stream: 'positions',
      from: positionHorizon(planned),
      to: planned,
      now: planned,
    });
    // The workers were down for two days: the first two days of the windows left the exchange unread.
    sim.clock.advance(2 * DAY);
    file.pipeline.startWorkers();
    await settled(started);
    const windows = await positionWindows(started.windows.map((w) => w.id));
    // One window per scope and grid cell the 90 days touch (the 90-day grid cuts them in two at most).
    expect(windows).toHaveLength(started.windows.length);
    expect([3, 6]).toContain(windows.length);
    for (const window of windows) {
      expect(window.status).toBe('done');
      // Not the planned start: the ledger does not claim what was never read.
      expect(Number(window.start)).toBeGreaterThanOrEqual(positionHorizon(sim.clock.now(), 0) - 60_000);
    }
    const report = await runReconciliation(runtime, { accountId, recount: 'all' });
    expect(report.passed).toBe(true);
  });

  it('fail, naming the loss, when the horizon passed their whole range', async () => {
    const { sim, runtime } = file.pipeline;
    const planned = sim.clock.now();
    const started = await startBackfill(runtime, {
      account: 'demo',
      stream: 'positions',
      // After what the test above read: a range already covered would plan no window at all.
      from: planned - DAY,
      to: planned,
      now: planned,
    });
    sim.clock.advance(100 * DAY);
    await settled(started);
    const windows = await positionWindows(started.windows.map((w) => w.id));
    expect(windows.length).toBeGreaterThan(0);
    for (const window of windows) {
      expect(window.status).toBe('failed');
      expect(window.last_error).toMatch(
        /^WindowLostError: .* the exchange now serves only from .*: its records are lost$/,
      );
    }
  });
});
