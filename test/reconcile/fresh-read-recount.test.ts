import { describe, expect, it } from 'vitest';

import { planAndEnqueueSync } from '../../src/app/services/plan-and-enqueue-sync.ts';
import type { CountCheck, ReconciliationReport } from '../../src/reconcile/report-types.ts';
import { runReconciliation } from '../../src/reconcile/run-reconciliation.ts';
import { coinIndex } from '../../src/simulator/data/coins.ts';
import { FIXED_DECIMALS } from '../../src/simulator/data/fixed.ts';
import { usePipeline } from '../helpers/pipeline.ts';
import { backfill, DAY, setAside } from './support.ts';

const NOW = Date.UTC(2026, 9, 15);
const SPOT_PATH = '/api/v2/tax/spot-record';
const file = usePipeline('freshreadrecount', {
  simulatorClock: true,
  simulator: { scale: 'demo', now: NOW },
});

const counts = (report: ReconciliationReport) =>
  report.checks.find((c): c is CountCheck => c.name === 'window-counts')!;

async function waitForWindows(ids: string[]): Promise<void> {
  const { pool } = file.pipeline.runtime;
  const deadline = Date.now() + 90_000;
  for (;;) {
    const { rows } = await pool.query<{ open: number }>(
      `SELECT count(*) FILTER (WHERE status <> 'done')::int AS open FROM sync_window WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    if (rows[0]!.open === 0) return;
    if (Date.now() > deadline) throw new Error('the sync did not finish');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a fresh read is its own re-count', () => {
  it('asks the exchange nothing for windows just read; a record published into one after its read is found by the next night', async () => {
    const { runtime, accountId, sim } = file.pipeline;
    const { pool } = runtime;
    sim.clock.set(NOW - DAY);
    await backfill(file.pipeline, { stream: 'spot', from: NOW - 60 * DAY, to: NOW - DAY, now: NOW - DAY });

    // The exchange publishes a record late, into the last day the backfill has just read, just
    // before a later record of its coin (so the coin's last record, which the anchors check, stays
    // the same); amount and fee 0, so the balance chain cannot see it: only a read of the window can.
    const truth = sim.truth('spot');
    const next = truth.find((r) => Number(r.ts) < NOW - DAY)!;
    const previous = truth.find((r) => r.coin === next.coin && Number(r.ts) < Number(next.ts))!;
    const ts = Number(next.ts) - 1;
    expect(ts).toBeGreaterThan(Math.max(Number(previous.ts), NOW - 2 * DAY)); // the next night's lookback reads it
    const lateId = ts * 1000 + 999;
    const data = sim.context.dataOf(sim.demo.uid);
    data.spot = data.spot.withRecord({
      id: lateId,
      coin: coinIndex(next.coin),
      type: 0,
      amount: 0,
      fee: 0,
      // Columns hold units of 10^-FIXED_DECIMALS: the coin's balance, unchanged.
      balance: Math.round(Number(previous.balance) * 10 ** FIXED_DECIMALS),
    });
    expect(sim.truth('spot').some((r) => r.id === String(lateId))).toBe(true);

    // That night's reconciliation: every window was read minutes ago, nothing is asked again.
    sim.counters.reset();
    const night1 = await runReconciliation(runtime, { accountId, recount: 'recent' });
    expect(night1.full).toBe(true); // no checkpoint yet: the whole chain, but not a scheduled full check
    expect(night1.summary).not.toMatch(/FAIL/);
    expect(night1.passed).toBe(true);
    const windows = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM sync_window WHERE status = 'done'`);
    expect(counts(night1)).toMatchObject({
      windowsRecounted: windows.rows[0]!.n,
      windowsFromReads: windows.rows[0]!.n,
      requests: 0,
    });
    expect(sim.counters.get()[SPOT_PATH]?.served ?? 0).toBeLessThanOrEqual(2 * 7 + 3); // the anchors of 7 coins, the paging check
    const stored = () =>
      pool.query(`SELECT 1 FROM spot_record WHERE account_id = $1 AND record_id = $2`, [accountId, String(lateId)]);
    expect((await stored()).rows).toHaveLength(0);

    // The next night: the sync's lookback reads the last day again and stores the late record.
    sim.clock.set(NOW);
    const account = await runtime.accounts.getById(accountId);
    const sync = await planAndEnqueueSync(runtime, account, { stream: 'spot', now: NOW });
    await waitForWindows(sync.windows.map((w) => w.id));
    expect((await stored()).rows).toHaveLength(1);
    const night2 = await runReconciliation(runtime, { accountId, recount: 'recent' });
    expect(night2.passed).toBe(true);
    expect(counts(night2).windowsFromReads).toBe(sync.windows.length);

    // A full check asks the exchange for every window of its days again.
    sim.counters.reset();
    const full = await runReconciliation(runtime, { accountId, recount: 'recent', full: true });
    expect(full.passed).toBe(true);
    expect(counts(full).windowsFromReads).toBe(0);
    expect(counts(full).requests).toBeGreaterThan(0);
  }, 180_000);

  it('a record the store lost after a fresh read is asked of the exchange and named, as before', async () => {
    const { runtime, accountId } = file.pipeline;
    const { pool } = runtime;
    const victim = await pool.query<{ record_id: string; window_id: string }>(
      `SELECT s.record_id, w.id AS window_id FROM spot_record s
         JOIN sync_window w ON w.account_id = s.account_id AND w.stream = 'spot' AND w.status = 'done'
                           AND s.ts >= w.window_start AND s.ts < w.window_end
        WHERE s.account_id = $1 ORDER BY s.ts DESC LIMIT 1`,
      [accountId],
    );
    const { record_id: recordId, window_id: windowId } = victim.rows[0]!;
    // Its window read again just now, as a night's sync reads it: fresh, and not re-counted yet.
    await pool.query(`UPDATE sync_window SET finished_at = now(), started_at = now() WHERE id = $1`, [windowId]);
    const aside = await setAside(file.pipeline, 'spot_record', 'account_id = $1 AND record_id = $2', [
      accountId,
      recordId,
    ]);
    try {
      const check = counts(await runReconciliation(runtime, { accountId, recount: 'recent' }));
      expect(check.passed).toBe(false);
      expect(check.windowsRecounted).toBe(1);
      expect(check.windowsFromReads).toBe(0);
      expect(check.requests).toBeGreaterThan(0);
      expect(check.mismatches).toEqual([expect.objectContaining({ stream: 'spot', missing: [recordId], extra: [] })]);
    } finally {
      await aside.restore();
    }
  }, 120_000);

  it('a stored record the fresh read did not meet is asked of the exchange, which still serves it here', async () => {
    const { runtime, accountId } = file.pipeline;
    const { pool } = runtime;
    const { rows } = await pool.query<{ window_id: string }>(
      `WITH hit AS (
         UPDATE spot_record SET read_id = 0
          WHERE (account_id, record_id) = (SELECT account_id, record_id FROM spot_record WHERE account_id = $1
                                            ORDER BY ts DESC OFFSET 1 LIMIT 1)
          RETURNING account_id, ts)
       SELECT w.id AS window_id FROM hit JOIN sync_window w ON w.account_id = hit.account_id AND w.stream = 'spot'
          AND w.status = 'done' AND hit.ts >= w.window_start AND hit.ts < w.window_end`,
      [accountId],
    );
    await pool.query(`UPDATE sync_window SET finished_at = now(), started_at = now() WHERE id = $1`, [
      rows[0]!.window_id,
    ]);
    const check = counts(await runReconciliation(runtime, { accountId, recount: 'recent' }));
    expect(check).toMatchObject({ passed: true, windowsRecounted: 1, windowsFromReads: 0 });
    expect(check.requests).toBeGreaterThan(0);
  }, 120_000);

  it('the margin and P2P ledgers are re-counted from their fresh reads too, asking nothing', async () => {
    const { runtime, accountId } = file.pipeline;
    for (const stream of ['margin-ledger', 'p2p-ledger'] as const) {
      await backfill(file.pipeline, { stream, from: NOW - 60 * DAY, to: NOW, now: NOW });
    }
    const { rows } = await runtime.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM sync_window WHERE stream IN ('margin-ledger', 'p2p-ledger') AND status = 'done'`,
    );
    expect(rows[0]!.n).toBeGreaterThanOrEqual(3 * 2);
    const check = counts(await runReconciliation(runtime, { accountId, recount: 'recent' }));
    // Only the two ledgers' windows are judged here: a spot window the cases above marked as just read
    // can fall in this run's re-count too (it did once in CI: one more window, one spot request).
    expect(check.passed).toBe(true);
    expect(check.requestsByStream).not.toHaveProperty('margin-ledger');
    expect(check.requestsByStream).not.toHaveProperty('p2p-ledger');
    expect(check.windowsFromReads).toBeGreaterThanOrEqual(rows[0]!.n);
  }, 120_000);
});
