import { describe, expect, it } from 'vitest';

import { endsShort } from '../../src/ingest/coverage/page-fill-evidence.ts';
import type { BalanceCheck, CountCheck, ReconciliationReport } from '../../src/reconcile/report-types.ts';
import { runReconciliation } from '../../src/reconcile/run-reconciliation.ts';
import { spotRecordEndpoint } from '../../src/streams/spot/endpoint.ts';
import { usePipeline } from '../helpers/pipeline.ts';
import { largestBurst } from '../helpers/spot-burst.ts';
import { backfill, DAY } from './support.ts';

/*
 * Issue 36 item 3, the case the night's re-count cannot see: a capped exchange ends a window that
 * holds only new records (a range read for the first time) on its first, short page. Every record
 * the store holds was met by that read and the rows add up, so the read's marks vouch for the
 * window and tonight's re-count passes (read-marks.ts). The spot balance chain breaks the same
 * night; the full check (RECONCILE_FULL_EVERY_DAYS) asks the exchange for the window to its empty
 * page, names the records and withdraws the page-fill evidence (src/streams/kit/page-fill.ts).
 * Before the cap, the honest case: windows ended on a short page are complete reads, re-counted
 * from their own marks without a request.
 */

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 9, 15);
const PERIOD = 30 * DAY;
const SPOT = spotRecordEndpoint;
const file = usePipeline('cappedfullcheck', { simulatorClock: true, simulator: { scale: 'demo', now: NOW } });

const check = <C extends ReconciliationReport['checks'][number]>(report: ReconciliationReport, name: C['name']) =>
  report.checks.find((c): c is C => c.name === name)!;

describe('a window ended early by a capped exchange, vouched for by its own read', () => {
  it('breaks the balance chain the same night; the full check names the missing records and withdraws the evidence', async () => {
    const { runtime, accountId, sim } = file.pipeline;
    const { pool } = runtime;
    // The largest burst, its evening and night cut to its grid cell: one spot window on any date.
    const { size, from: evening, to: night } = largestBurst(sim.truth('spot'), SPOT, 12 * HOUR, 6 * HOUR);
    expect(size).toBeGreaterThan(SPOT.pageLimit);

    // Read honestly up to the evening before the burst: the evidence, and verified chains.
    sim.clock.set(evening);
    await backfill(file.pipeline, { stream: 'spot', from: evening - 120 * DAY, to: evening - 60 * DAY, now: evening });
    expect(await endsShort(pool, SPOT.name, SPOT.pageLimit, PERIOD)).toBe(true);
    await backfill(file.pipeline, { stream: 'spot', from: evening - 60 * DAY, to: evening, now: evening });
    // With the evidence, windows of the second backfill ended on their short last page: no empty page.
    const { rows: read } = await pool.query<{ short: number }>(
      `SELECT count(*)::int AS short FROM sync_window
        WHERE stream = 'spot' AND status = 'done' AND window_start >= $1
          AND rows % $2 <> 0 AND pages = ceil(rows / $2::numeric)`,
      [new Date(evening - 60 * DAY), SPOT.pageLimit],
    );
    expect(read[0]!.short).toBeGreaterThan(0);
    // Such a read is complete: the re-count takes every window from its own read, asking nothing.
    const honest = await runReconciliation(runtime, { accountId, recount: 'recent' });
    expect(honest.passed).toBe(true);
    const honestCounts = check<CountCheck>(honest, 'window-counts');
    expect(honestCounts.windowsFromReads).toBe(honestCounts.windowsRecounted);
    expect(honestCounts.requests).toBe(0);

    // The next stretch is read for the first time while the exchange caps its pages at 250.
    sim.clock.set(night);
    sim.faults.set({ page: 'capPageSize', paths: [SPOT.path] });
    await backfill(file.pipeline, { stream: 'spot', from: evening, to: night, now: night });
    const { rows } = await pool.query<{ id: string }>(
      `SELECT record_id AS id FROM spot_record WHERE account_id = $1 AND ts >= $2 AND ts < $3`,
      [accountId, new Date(evening), new Date(night)],
    );
    const stored = new Set(rows.map((r) => r.id));
    const truth = sim.truth('spot').filter((r) => Number(r.ts) >= evening && Number(r.ts) < night);
    const lost = truth.filter((r) => !stored.has(r.id)).map((r) => r.id);
    expect(stored.size).toBe(SPOT.pageLimit / 2);
    expect(lost.length).toBe(truth.length - SPOT.pageLimit / 2);

    // Tonight: the read vouches for its window (nothing asked of the exchange), but the chain breaks.
    const tonight = await runReconciliation(runtime, { accountId, recount: 'recent' });
    const recount = check<CountCheck>(tonight, 'window-counts');
    expect(recount.passed).toBe(true);
    expect(recount.windowsFromReads).toBeGreaterThan(0);
    expect(recount.requests).toBe(0);
    expect(check<BalanceCheck>(tonight, 'balance-continuity').breaks.length).toBeGreaterThan(0);
    expect(tonight.passed).toBe(false);
    expect(await endsShort(pool, SPOT.name, SPOT.pageLimit, PERIOD)).toBe(true);

    // The full check asks the exchange for every window to its empty page, capped or not.
    const full = await runReconciliation(runtime, { accountId, recount: 'recent', full: true });
    expect(full.passed).toBe(false);
    const fullRecount = check<CountCheck>(full, 'window-counts');
    expect(fullRecount.windowsFromReads ?? 0).toBe(0);
    const named = fullRecount.mismatches.flatMap((m) => m.missing);
    expect(named.length).toBeGreaterThan(0);
    for (const id of named) expect(lost).toContain(id);
    expect(fullRecount.mismatches.map((m) => m.exchange - m.stored)).toEqual([lost.length]);
    expect(fullRecount.notes.join('\n')).toMatch(/spotRecord answered a page shorter than the 500 asked for/);
    expect(await endsShort(pool, SPOT.name, SPOT.pageLimit, PERIOD)).toBe(false);
  }, 180_000);
});
