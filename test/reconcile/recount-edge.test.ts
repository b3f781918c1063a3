import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { CheckName, CheckResult, ReconciliationReport } from '../../src/reconcile/report-types.ts';
import { runReconciliation } from '../../src/reconcile/run-reconciliation.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { backfill, DAY, setAside } from './support.ts';

/**
 * What a reconciliation asks the exchange for spot records, and what `recount: edge` leaves out.
 * The simulator's clock stands still, so a re-read pages exactly as the backfill did.
 */
const db = useTestDatabase('recount-edge');
const NOW = Date.now();
const SPOT_PATH = '/api/v2/tax/spot-record';
let pipeline: Pipeline;

beforeAll(async () => {
  pipeline = await startPipeline({ databaseUrl: db.url, simulator: { now: NOW } });
  const workers = pipeline.startWorkers();
  await backfill(pipeline, { from: NOW - 400 * DAY, to: NOW, now: NOW });
  await workers.close();
}, 120_000);
afterAll(async () => {
  await pipeline?.close();
});

function check<N extends CheckName>(report: ReconciliationReport, name: N): Extract<CheckResult, { name: N }> {
  const found = report.checks.find((c): c is Extract<CheckResult, { name: N }> => c.name === name);
  if (!found) throw new Error(`no ${name} check in the report`);
  return found;
}

async function spotRequests(run: () => Promise<ReconciliationReport>): Promise<[ReconciliationReport, number]> {
  pipeline.sim.counters.reset();
  const report = await run();
  return [report, pipeline.sim.counters.get()[SPOT_PATH]?.served ?? 0];
}

// A full check: a test breaks stored data an earlier run verified.
const reconcile = (recount: 'recent' | 'edge') =>
  runReconciliation(pipeline.runtime, { accountId: pipeline.accountId, recount, full: true });

describe('recount and the spot requests it makes', () => {
  it('recent: the anchors and the paging check ask nothing the window re-reads already answered', async () => {
    const [report, requests] = await spotRequests(() => reconcile('recent'));
    expect(report.passed).toBe(true);
    expect(check(report, 'balance-continuity').examined).toMatch(/first and last records of 7 coins checked/);
    // Every spot window is re-read, page for page as the backfill read it; nothing else is asked.
    const pages = await pipeline.runtime.pool.query<{ pages: number }>(
      `SELECT sum(pages)::int AS pages FROM sync_window WHERE stream = 'spot' AND status = 'done'`,
    );
    expect(requests).toBe(pages.rows[0]!.pages);
  });

  it('edge: spot windows settled before their read are not re-read, and the balance chain still finds a lost record there', async () => {
    const { pool } = pipeline.runtime;
    const windows = await pool.query<{ total: number; settled: number }>(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE stream = 'spot' AND window_end <= started_at - interval '3 days')::int AS settled
         FROM sync_window WHERE status = 'done'`,
    );
    const { total, settled } = windows.rows[0]!;
    expect(settled).toBeGreaterThan(0);
    const report = await reconcile('edge');
    expect(report.passed).toBe(true);
    expect(check(report, 'window-counts').windowsRecounted).toBe(total - settled);
    expect(check(report, 'window-counts').examined).toContain(
      `(${settled} settled spot windows left to the balance chain)`,
    );

    // A record lost from a settled window, between two of its coin, moving the balance.
    const victim = await pool.query<{ record_id: string; coin: string }>(
      `SELECT record_id, coin FROM (
         SELECT record_id, coin, ts, amount + fee AS delta,
                lag(record_id) OVER w AS previous_id, lead(record_id) OVER w AS next_id
           FROM spot_record WINDOW w AS (PARTITION BY coin ORDER BY ts, length(record_id), record_id)) x
        WHERE previous_id IS NOT NULL AND next_id IS NOT NULL AND delta <> 0 AND ts < $1
        ORDER BY ts LIMIT 1 OFFSET 100`,
      [new Date(NOW - 200 * DAY)],
    );
    const aside = await setAside(pipeline, 'spot_record', 'record_id = $1', [victim.rows[0]!.record_id]);
    try {
      const broken = await reconcile('edge');
      expect(broken.passed).toBe(false);
      expect(check(broken, 'balance-continuity').breakCount).toBe(1);
      expect(check(broken, 'balance-continuity').breaks[0]!.coin).toBe(victim.rows[0]!.coin);
      // Not re-read under edge: the count check cannot see it, the chain does.
      expect(check(broken, 'window-counts').passed).toBe(true);
    } finally {
      await aside.restore();
    }
  });
});
