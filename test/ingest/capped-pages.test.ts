import { describe, expect, it } from 'vitest';

import { planAndEnqueueSync } from '../../src/app/services/plan-and-enqueue-sync.ts';
import { endsShort } from '../../src/ingest/coverage/page-fill-evidence.ts';
import type { BalanceCheck, CountCheck, ReconciliationReport } from '../../src/reconcile/report-types.ts';
import { runReconciliation } from '../../src/reconcile/run-reconciliation.ts';
import { spotRecordEndpoint } from '../../src/streams/spot/endpoint.ts';
import { backfillUntilDone } from '../helpers/backfill-done.ts';
import { usePipeline } from '../helpers/pipeline.ts';
import { largestBurst } from '../helpers/spot-burst.ts';

/*
 * Issue 36 item 3: a page shorter than the limit ends a window when the endpoint is known to fill
 * its pages (src/streams/kit/page-fill.ts). The risk: an exchange that starts capping its pages
 * below the limit after that evidence was gathered. Every page is then short, and a window ends on
 * its first page, the rest of it lost while the read's own marks vouch for what it stored. This
 * file shows what catches it: the night's reconciliation names the records, withdraws the
 * evidence, and a refetch, paging to the empty page again, mends the window.
 */

const DAY = 86_400_000;
const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 9, 15);
const PERIOD = 30 * DAY;
const SPOT = spotRecordEndpoint;
const file = usePipeline('cappedpages', { simulatorClock: true, simulator: { scale: 'demo', now: NOW } });

const check = <C extends ReconciliationReport['checks'][number]>(report: ReconciliationReport, name: C['name']) =>
  report.checks.find((c): c is C => c.name === name)!;

async function waitForWindows(ids: string[]): Promise<void> {
  const { pool } = file.pipeline.runtime;
  for (const deadline = Date.now() + 90_000; ;) {
    const { rows } = await pool.query<{ open: number; failed: number }>(
      `SELECT count(*) FILTER (WHERE status <> 'done')::int AS open,
              count(*) FILTER (WHERE status = 'failed')::int AS failed
         FROM sync_window WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    if (rows[0]!.failed > 0) throw new Error('a sync window failed');
    if (rows[0]!.open === 0) return;
    if (Date.now() > deadline) throw new Error('the sync did not finish');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function storedIds(from: number, to: number): Promise<Set<string>> {
  const { rows } = await file.pipeline.runtime.pool.query<{ id: string }>(
    `SELECT record_id AS id FROM spot_record WHERE account_id = $1 AND ts >= $2 AND ts < $3`,
    [file.pipeline.accountId, new Date(from), new Date(to)],
  );
  return new Set(rows.map((r) => r.id));
}

describe('an exchange that starts capping its pages after the evidence', () => {
  it("loses the rest of the night's window; the night's reconciliation names the records and withdraws the evidence; a refetch mends it", async () => {
    const { runtime, accountId, sim } = file.pipeline;
    const { pool } = runtime;
    // The night holds the demo's largest burst: more records at one instant than a capped page (250).
    // The largest burst, its evening and night cut to its grid cell: one spot window on any date.
    const { burst, size, from: evening, to: night } = largestBurst(sim.truth('spot'), SPOT, 12 * HOUR, 6 * HOUR);
    expect(size).toBeGreaterThan(SPOT.pageLimit);
    expect(burst).toBeGreaterThan(NOW - 300 * DAY);

    // The history up to the evening before, read honestly: its full pages of 500 are the evidence.
    sim.clock.set(evening);
    await backfillUntilDone(
      runtime,
      { account: 'demo', stream: 'spot', from: evening - 60 * DAY, to: evening, now: evening },
      90_000,
    );
    expect(await endsShort(pool, SPOT.name, SPOT.pageLimit, PERIOD)).toBe(true);
    const before = await runReconciliation(runtime, { accountId, recount: 'recent' });
    expect(before.summary).not.toMatch(/FAIL/);
    expect(before.passed).toBe(true);

    // The night: the exchange now answers at most 250 of the 500 asked for, and says nothing.
    sim.clock.set(night);
    sim.faults.set({ page: 'capPageSize', paths: [SPOT.path] });
    const account = await runtime.accounts.getById(accountId);
    const sync = await planAndEnqueueSync(runtime, account, { stream: 'spot', now: night });
    await waitForWindows(sync.windows.map((w) => w.id));
    const truth = sim.truth('spot').filter((r) => Number(r.ts) >= evening - DAY && Number(r.ts) < night);
    const stored = await storedIds(evening - DAY, night);
    const lost = truth.filter((r) => !stored.has(r.id)).map((r) => r.id);
    // The window ended on its first, short page: the rest of the burst is not stored, yet the window is done.
    expect(lost.length).toBeGreaterThanOrEqual(size - SPOT.pageLimit / 2);
    const { rows: windows } = await pool.query<{ status: string }>(
      `SELECT status::text FROM sync_window WHERE id = ANY($1::uuid[])`,
      [sync.windows.map((w) => w.id)],
    );
    expect(windows.every((w) => w.status === 'done')).toBe(true);

    // The night's reconciliation: it does not pass, and it names the records the exchange still has.
    const tonight = await runReconciliation(runtime, { accountId, recount: 'recent' });
    expect(tonight.passed).toBe(false);
    const recount = check<CountCheck>(tonight, 'window-counts');
    expect(recount.passed).toBe(false);
    const named = recount.mismatches.flatMap((m) => m.missing);
    expect(named.length).toBeGreaterThan(0);
    for (const id of named) expect(lost).toContain(id);
    expect(recount.notes.join('\n')).toMatch(/spotRecord answered a page shorter than the 500 asked for/);
    // The balance chain, anchored at the exchange, breaks where the records are missing.
    expect(check<BalanceCheck>(tonight, 'balance-continuity').breaks.length).toBeGreaterThan(0);
    // The gap withdrew the evidence: short pages end no window until full pages are seen for a period again.
    expect(await endsShort(pool, SPOT.name, SPOT.pageLimit, PERIOD)).toBe(false);

    // The repair, with the exchange still capping: the refetch pages each window to its empty page.
    await backfillUntilDone(
      runtime,
      { account: 'demo', stream: 'spot', from: evening - DAY, to: night, now: night, refetch: true },
      90_000,
    );
    const mended = await storedIds(evening - DAY, night);
    expect(truth.filter((r) => !mended.has(r.id))).toEqual([]);
    const after = await runReconciliation(runtime, { accountId, recount: 'recent', full: true });
    expect(after.summary).not.toMatch(/FAIL/);
    expect(after.passed).toBe(true);
  }, 180_000);
});
