import { describe, expect, it } from 'vitest';

import { startBackfill, type StartedBackfill } from '../../src/app/services/backfill.ts';
import { planAndEnqueueSync } from '../../src/app/services/plan-and-enqueue-sync.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { positionHorizon } from '../../src/streams/positions/endpoint.ts';
import { storedPositions, truthPositions } from '../helpers/ground-truth.ts';
import { usePipeline } from '../helpers/pipeline.ts';

const DAY = 86_400_000;
// The exchange's clock stands five months before this machine's: every plan must follow the exchange.
const EXCHANGE_NOW = Date.now() - 160 * DAY;
// The client keeps the local clock (it signs with it; the simulator accepts real time too).
const file = usePipeline('exchangeclock', { simulator: { now: EXCHANGE_NOW } });

async function settled(started: StartedBackfill): Promise<void> {
  const ids = started.windows.map((w) => w.id);
  for (const deadline = Date.now() + 60_000; ;) {
    const progress = await windowProgress(file.pipeline.runtime.pool, ids);
    if (progress.every((p) => p.done + p.failed === p.total)) return;
    if (Date.now() > deadline) throw new Error(`not settled: ${JSON.stringify(progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('plans on the exchange clock, with a local clock months ahead of it', () => {
  it('a backfill up to "now" plans no window past the exchange\'s now, and positions from its horizon', async () => {
    const { sim, runtime, accountId } = file.pipeline;
    const exchangeNow = sim.clock.now();
    const started = await startBackfill(runtime, {
      account: 'demo',
      stream: 'all',
      from: exchangeNow - 20 * DAY,
      // What `backfill` without --to passes: the local now.
      to: Date.now(),
    });
    expect(started.notes.join(' ')).toMatch(/is in the future: reading up to now/);
    for (const window of started.windows) expect(window.end).toBeLessThanOrEqual(exchangeNow + 60_000);
    const positions = started.windows.filter((w) => w.stream === 'positions');
    // Fixed-grid windows: per product type (scope) they tile [from, exchange now] without gap or overlap.
    const scopes = new Set(positions.map((w) => w.scope));
    expect(scopes.size).toBe(3);
    for (const scope of scopes) {
      const tiles = positions.filter((w) => w.scope === scope).sort((a, b) => Number(a.start) - Number(b.start));
      expect(Number(tiles[0]!.start)).toBe(exchangeNow - 20 * DAY);
      for (let i = 1; i < tiles.length; i++) expect(tiles[i]!.start).toBe(tiles[i - 1]!.end);
      expect(Number(tiles.at(-1)!.end)).toBeLessThanOrEqual(exchangeNow + 60_000);
      expect(Number(tiles.at(-1)!.end)).toBeGreaterThanOrEqual(exchangeNow - 60_000);
    }

    // The pager judges the horizon on the exchange's clock too: every position since the window's start is read.
    await settled(started);
    const failed = await runtime.pool.query(`SELECT last_error FROM sync_window WHERE status <> 'done'`);
    expect(failed.rows).toEqual([]);
    const stored = await storedPositions(runtime.pool, accountId);
    expect(stored.length).toBeGreaterThan(0);
    expect(stored).toEqual(truthPositions(sim, exchangeNow - 20 * DAY));
    expect(positionHorizon(exchangeNow)).toBeLessThan(exchangeNow - 20 * DAY);
  });

  it("a sync plans its windows up to the exchange's now, not the local one", async () => {
    const { sim, runtime } = file.pipeline;
    const account = await runtime.accounts.get('demo');
    const exchangeNow = sim.clock.now();
    const started = await planAndEnqueueSync(runtime, account, { stream: 'spot' });
    expect(started.windows.length).toBeGreaterThan(0);
    const ends = started.windows.map((w) => w.end);
    expect(Math.max(...ends)).toBeLessThanOrEqual(exchangeNow + 60_000);
    expect(Math.max(...ends)).toBeGreaterThanOrEqual(exchangeNow);
  });
});
