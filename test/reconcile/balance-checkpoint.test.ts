import { describe, expect, it } from 'vitest';

import { planAndEnqueueSync } from '../../src/app/services/plan-and-enqueue-sync.ts';
import { fullCheckDue, lastFullCheck } from '../../src/reconcile/full-check-schedule.ts';
import type { BalanceCheck, ReconciliationReport } from '../../src/reconcile/report-types.ts';
import { runReconciliation } from '../../src/reconcile/run-reconciliation.ts';
import { usePipeline } from '../helpers/pipeline.ts';
import { backfill, DAY, setAside } from './support.ts';

const NOW = Date.UTC(2026, 9, 15);
const file = usePipeline('balancecheckpoint', { simulatorClock: true, simulator: { scale: 'demo', now: NOW } });

const balance = (report: ReconciliationReport) =>
  report.checks.find((c): c is BalanceCheck => c.name === 'balance-continuity')!;

/** A record of the range whose coin has a later record and whose amount + fee moves the balance: losing it breaks the chain. */
async function chainedRecord(from: number, to: number): Promise<{ recordId: string; next: string }> {
  const { rows } = await file.pipeline.runtime.pool.query<{ recordId: string; next: string }>(
    `SELECT s.record_id AS "recordId", n.record_id AS next FROM spot_record s
       CROSS JOIN LATERAL (SELECT record_id FROM spot_record t
                            WHERE t.account_id = s.account_id AND t.coin = s.coin AND t.ts > s.ts
                            ORDER BY t.ts, length(t.record_id), t.record_id LIMIT 1) n
      WHERE s.account_id = $1 AND s.ts >= $2 AND s.ts < $3 AND s.amount + s.fee <> 0
        AND NOT EXISTS (SELECT 1 FROM spot_record u WHERE u.account_id = s.account_id AND u.coin = s.coin AND u.ts = s.ts
                          AND u.record_id <> s.record_id)
      ORDER BY s.ts LIMIT 1`,
    [file.pipeline.accountId, new Date(from), new Date(to)],
  );
  return rows[0]!;
}

describe('the nightly balance check reads from the verified chains on', () => {
  it("finds a record lost from the night's window; the full check also finds one lost from a verified stretch", async () => {
    const { pipeline } = file;
    const { runtime, accountId, sim } = pipeline;
    await backfill(pipeline, { stream: 'spot', from: NOW - 365 * DAY, to: NOW - DAY, now: NOW - DAY });
    sim.clock.set(NOW - DAY);
    const first = await runReconciliation(runtime, { accountId, recount: 'none' });
    expect(first.full).toBe(true); // no checkpoint yet: the whole history
    expect(first.passed).toBe(true);

    // The night: a day later, the sync stores the new day's records.
    sim.clock.set(NOW);
    const account = await runtime.accounts.getById(accountId);
    const sync = await planAndEnqueueSync(runtime, account, { stream: 'spot', now: NOW });
    const ids = sync.windows.map((w) => w.id);
    for (;;) {
      const { rows } = await runtime.pool.query<{ open: number }>(
        `SELECT count(*) FILTER (WHERE status <> 'done')::int AS open FROM sync_window WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      if (rows[0]!.open === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }

    // Two records lost by the store: one the first run verified, one of the night's window.
    const old = await chainedRecord(NOW - 200 * DAY, NOW - 100 * DAY);
    const tonight = await chainedRecord(NOW - DAY, NOW);
    await setAside(pipeline, 'spot_record', 'account_id = $1 AND record_id = ANY($2)', [
      accountId,
      [old.recordId, tonight.recordId],
    ]);

    const nightly = await runReconciliation(runtime, { accountId, recount: 'none' });
    expect(nightly.full).toBe(false);
    const nightlyBreaks = balance(nightly).breaks.map((b) => b.recordId);
    expect(nightlyBreaks).toContain(tonight.next);
    expect(nightlyBreaks).not.toContain(old.next);
    expect(balance(nightly).examined).toMatch(/chained to its verified checkpoint/);
    // Reported again the next night, until mended: the checkpoint stays before the break.
    const again = await runReconciliation(runtime, { accountId, recount: 'none' });
    expect(balance(again).breaks.map((b) => b.recordId)).toContain(tonight.next);

    const full = await runReconciliation(runtime, { accountId, recount: 'none', full: true });
    expect(full.full).toBe(true);
    const fullBreaks = balance(full).breaks.map((b) => b.recordId);
    expect(fullBreaks).toEqual(expect.arrayContaining([old.next, tonight.next]));

    // The schedule: the next full check is due once the last is older than the operator's days.
    expect(await lastFullCheck(runtime.pool, accountId)).toEqual(full.startedAt);
    const later = full.startedAt.getTime();
    expect(await fullCheckDue(runtime.pool, accountId, 30, later + 29 * DAY)).toBe(false);
    expect(await fullCheckDue(runtime.pool, accountId, 30, later + 30 * DAY)).toBe(true);
    expect(await fullCheckDue(runtime.pool, accountId, 0, later + 300 * DAY)).toBe(false);
  }, 120_000);
});
