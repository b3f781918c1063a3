import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { scaledBudgets } from '../../jobs/composition/create-runtime.ts';
import { ClientProvider } from '../../src/accounts/client-provider.ts';
import type { RecountMode } from '../../src/reconcile/recount-mode.ts';
import type { CheckName, CheckResult, ReconciliationReport } from '../../src/reconcile/report-types.ts';
import { runReconciliation } from '../../src/reconcile/run-reconciliation.ts';
import { streamDefinition, WALLET_LEDGERS } from '../../src/streams/registry.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { randomPrefix } from '../helpers/test-redis.ts';
import { backfill, DAY, setAside } from './support.ts';

const db = useTestDatabase('reconcile');
// The simulator's clock stands still: no transfer settles (and moves its ts) between the backfill and a re-count.
const NOW = Date.now();
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

// The whole history each time (a full check): these tests break stored data a previous run verified.
const reconcile = (recount: RecountMode = 'none'): Promise<ReconciliationReport> =>
  runReconciliation(pipeline.runtime, { accountId: pipeline.accountId, recount, full: true });

function check<N extends CheckName>(report: ReconciliationReport, name: N): Extract<CheckResult, { name: N }> {
  const found = report.checks.find((c): c is Extract<CheckResult, { name: N }> => c.name === name);
  if (!found) throw new Error(`no ${name} check in the report`);
  return found;
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

describe('reconciliation after a backfill of the simulator', () => {
  it('passes every check, re-counting every window, and writes its report row', async () => {
    const report = await reconcile('all');
    expect(report.summary).not.toMatch(/FAIL/);
    expect(report.checks.map((c) => [c.name, c.passed])).toEqual([
      ['coverage', true],
      ['balance-continuity', true],
      ['paging-stuck', true],
      ['window-counts', true],
      ['futures-ledger', true],
      ...WALLET_LEDGERS.map((stream) => [stream, true]),
    ]);
    expect(report.passed).toBe(true);

    const windows = await pipeline.runtime.pool.query(`SELECT count(*)::int AS n FROM sync_window`);
    expect(check(report, 'window-counts').windowsRecounted).toBe(windows.rows[0].n);
    expect(check(report, 'coverage').extents.map((e) => `${e.stream}/${e.scope}`)).toEqual([
      'positions/COIN-FUTURES',
      'positions/USDC-FUTURES',
      'positions/USDT-FUTURES',
      'spot/',
      'transfers/',
      'futures-ledger/COIN-FUTURES',
      'futures-ledger/USDC-FUTURES',
      'futures-ledger/USDT-FUTURES',
      // Each wallet ledger's scopes (margin-ledger/crossed, margin-ledger/isolated, p2p-ledger/).
      ...WALLET_LEDGERS.flatMap((stream) => streamDefinition(stream).scopes.map((scope) => `${stream}/${scope}`)),
    ]);
    const spot = await pipeline.runtime.pool.query(`SELECT count(*)::int AS n FROM spot_record`);
    expect(check(report, 'balance-continuity').examined).toBe(
      `${spot.rows[0].n} records of 7 coins; first and last records of 7 coins checked against the exchange`,
    );
    expect(report.summary.split('\n').filter((l) => l.startsWith('PASS  '))).toHaveLength(5 + WALLET_LEDGERS.length);

    const row = await db.prisma.reconciliationReport.findUniqueOrThrow({ where: { id: report.id } });
    expect(row).toMatchObject({ accountId: pipeline.accountId, recount: 'all', passed: true, summary: report.summary });
    expect(row.finishedAt.getTime()).toBeGreaterThanOrEqual(row.startedAt.getTime());
    expect(JSON.parse(JSON.stringify(row.checks))).toEqual(JSON.parse(JSON.stringify(report.checks)));
  });

  it('a deleted spot record breaks the balance of its coin at the next record, and the re-count names it', async () => {
    const { pool } = pipeline.runtime;
    // A record between two others of its coin, whose amount + fee moves the balance (a first record has no predecessor to break from).
    const victim = await pool.query<{ record_id: string; coin: string; next_id: string; ts: Date }>(
      `SELECT record_id, coin, next_id, ts FROM (
         SELECT record_id, coin, ts, amount + fee AS delta,
                lag(record_id) OVER w AS previous_id, lead(record_id) OVER w AS next_id
           FROM spot_record WINDOW w AS (PARTITION BY coin ORDER BY ts, length(record_id), record_id)) x
        WHERE previous_id IS NOT NULL AND next_id IS NOT NULL AND delta <> 0
        ORDER BY ts DESC LIMIT 1 OFFSET 30`,
    );
    const { record_id: recordId, coin, next_id: nextId } = victim.rows[0]!;
    const aside = await setAside(pipeline, 'spot_record', 'record_id = $1', [recordId]);
    expect(aside.rows).toBe(1);
    try {
      const report = await reconcile('all');
      expect(report.passed).toBe(false);
      const balance = check(report, 'balance-continuity');
      expect(balance.passed).toBe(false);
      expect(balance.breakCount).toBe(1);
      expect(balance.breaks[0]).toMatchObject({ coin, recordId: nextId });
      expect(balance.breaks[0]!.expected).not.toBe(balance.breaks[0]!.stored);
      expect(report.summary).toMatch(/^FAIL {2}spot balance continuity/m);
      expect(report.summary).toContain(`spot balance continuity: ${coin}: record ${nextId} at `);

      const counts = check(report, 'window-counts');
      expect(counts.mismatches).toHaveLength(1);
      expect(counts.mismatches[0]).toMatchObject({ stream: 'spot', missing: [recordId], extra: [] });
      expect(counts.mismatches[0]!.exchange).toBe(counts.mismatches[0]!.stored + 1);
      expect(check(report, 'coverage').passed).toBe(true);
    } finally {
      await aside.restore();
    }
    expect((await reconcile()).passed).toBe(true);
  });

  it("a coin's missing first and last records leave no break in the chain, and the exchange check names them", async () => {
    const { pool } = pipeline.runtime;
    const ends = await pool.query<{ coin: string; first_id: string; last_id: string }>(
      `SELECT DISTINCT ON (coin) coin, first_value(record_id) OVER w AS first_id, last_value(record_id) OVER w AS last_id
         FROM spot_record
       WINDOW w AS (PARTITION BY coin ORDER BY ts, length(record_id), record_id
                    ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
        ORDER BY coin LIMIT 1`,
    );
    const { coin, first_id: firstId, last_id: lastId } = ends.rows[0]!;
    const aside = await setAside(pipeline, 'spot_record', 'record_id = ANY($1)', [[firstId, lastId]]);
    expect(aside.rows).toBe(2);
    try {
      // Offline the chain has nothing to break at: this is why the ends are anchored.
      expect(check(await reconcile('none'), 'balance-continuity').passed).toBe(true);
      const balance = check(await reconcile('recent'), 'balance-continuity');
      expect(balance.passed).toBe(false);
      expect(balance.breakCount).toBe(0);
      expect(balance.failures).toEqual([
        expect.stringMatching(
          new RegExp(`^${coin}: record ${firstId} at .* is on the exchange but not stored, before`),
        ),
        expect.stringMatching(new RegExp(`^${coin}: record ${lastId} at .* is on the exchange but not stored, after`)),
      ]);
    } finally {
      await aside.restore();
    }
    expect(check(await reconcile('recent'), 'balance-continuity').passed).toBe(true);
  });

  it('a done window set back to pending, never finished, leaves a gap named by stream, scope and range', async () => {
    const { pool } = pipeline.runtime;
    const spotMiddle = await pool.query<{ id: string; start: string; end: string; finished: Date }>(
      `SELECT id, (extract(epoch from window_start) * 1000)::bigint::text AS start,
              (extract(epoch from window_end) * 1000)::bigint::text AS "end", finished_at AS finished
         FROM sync_window WHERE stream = 'spot' ORDER BY window_start OFFSET 5 LIMIT 1`,
    );
    const window = spotMiddle.rows[0]!;
    // finished_at cleared too: a window that finished once keeps covering its range while it is read
    // again (--refetch, migration 20261128033000_refetch_keeps_coverage), so only one never read leaves a gap.
    await pool.query(`UPDATE sync_window SET status = 'pending', finished_at = NULL WHERE id = $1`, [window.id]);
    try {
      const report = await reconcile();
      const coverage = check(report, 'coverage');
      expect(coverage.passed).toBe(false);
      const range = { stream: 'spot', scope: '', start: Number(window.start), end: Number(window.end) };
      expect(coverage.findings).toEqual([
        { kind: 'gap', ...range },
        { kind: 'not-done', ...range, status: 'pending', lastError: null },
      ]);
      const named = `spot [${iso(range.start)}, ${iso(range.end)})`;
      expect(report.summary).toContain(`coverage: ${named}: gap, no done window covers it`);
      expect(report.summary).toContain(`coverage: ${named}: window is pending`);
      expect(report.summary).toMatch(/^FAIL {2}coverage/m);
    } finally {
      await pool.query(`UPDATE sync_window SET status = 'done', finished_at = $2 WHERE id = $1`, [
        window.id,
        window.finished,
      ]);
    }
  });

  it('a deleted done window at the edge of coverage fails against the extent earlier reports saw', async () => {
    const { pool } = pipeline.runtime;
    const oldest = await pool.query<{ id: string; start: string; end: string }>(
      `SELECT id, (extract(epoch from window_start) * 1000)::bigint::text AS start,
              (extract(epoch from window_end) * 1000)::bigint::text AS "end"
         FROM sync_window WHERE stream = 'spot' ORDER BY window_start LIMIT 1`,
    );
    const { id, start, end } = oldest.rows[0]!;
    // No gap is left between the remaining windows: only earlier reports know the range was longer.
    const aside = await setAside(pipeline, 'sync_window', 'id = $1', [id]);
    try {
      const report = await reconcile();
      const coverage = check(report, 'coverage');
      expect(coverage.passed).toBe(false);
      expect(coverage.findings).toEqual([
        {
          kind: 'shrunk',
          stream: 'spot',
          scope: '',
          start: Number(start),
          end: NOW,
          current: { start: Number(end), end: NOW },
        },
      ]);
      expect(report.summary).toContain(
        `coverage: spot: earlier reports saw [${iso(Number(start))}, ${iso(NOW)}) covered, now only [${iso(Number(end))}, ${iso(NOW)}): done windows were removed`,
      );
    } finally {
      await aside.restore();
    }
    expect(check(await reconcile(), 'coverage').passed).toBe(true);
  });

  it('the re-count catches a window whose stored rows were deleted; recent skips windows finished long ago', async () => {
    const { pool } = pipeline.runtime;
    const target = await pool.query<{ id: string; start: string; end: string; rows: number }>(
      `SELECT id, (extract(epoch from window_start) * 1000)::bigint::text AS start,
              (extract(epoch from window_end) * 1000)::bigint::text AS "end", rows
         FROM sync_window WHERE stream = 'transfers' AND rows > 2 ORDER BY window_start LIMIT 1`,
    );
    const window = target.rows[0]!;
    const aside = await setAside(
      pipeline,
      'broker_transfer',
      `ts >= timestamptz 'epoch' + $1::bigint * interval '1 millisecond'
       AND ts < timestamptz 'epoch' + $2::bigint * interval '1 millisecond'`,
      [window.start, window.end],
    );
    expect(aside.rows).toBe(window.rows);
    try {
      // The stored data alone agrees with itself: only the exchange can tell.
      const offline = await reconcile('none');
      expect(offline.checks.filter((c) => !c.passed)).toEqual([]);

      const report = await reconcile('recent');
      const counts = check(report, 'window-counts');
      expect(counts.passed).toBe(false);
      expect(counts.mismatches).toEqual([
        expect.objectContaining({
          stream: 'transfers',
          scope: '',
          start: Number(window.start),
          end: Number(window.end),
          stored: 0,
          exchange: window.rows,
        }),
      ]);
      expect(report.summary).toContain(
        `window counts: transfers [${iso(Number(window.start))}, ${iso(Number(window.end))}): 0 rows stored, the exchange returns ${window.rows}`,
      );

      // Finished four days ago: `recent` leaves it alone, `all` still catches it.
      await pool.query(`UPDATE sync_window SET finished_at = now() - interval '4 days' WHERE id = $1`, [window.id]);
      const recent = check(await reconcile('recent'), 'window-counts');
      expect(recent.passed).toBe(true);
      const total = await pool.query(`SELECT count(*)::int AS n FROM sync_window`);
      expect(recent.windowsRecounted).toBe(total.rows[0].n - 1);
      expect(check(await reconcile('all'), 'window-counts').mismatches).toHaveLength(1);
    } finally {
      await aside.restore();
      await pool.query(`UPDATE sync_window SET finished_at = now() WHERE id = $1`, [window.id]);
    }
  });

  it('an exchange failing under the re-count fails that check with the error; the others still run', async () => {
    pipeline.sim.faults.set({ http500: 1, paths: ['/api/v2/tax/spot-record'] });
    try {
      const report = await reconcile('all');
      // The balance check asks the same endpoint for each coin's ends: it cannot finish either.
      expect(report.checks.map((c) => [c.name, c.passed])).toEqual([
        ['coverage', true],
        ['balance-continuity', false],
        ['paging-stuck', true],
        ['window-counts', false],
        ['futures-ledger', true],
        ...WALLET_LEDGERS.map((stream) => [stream, true]),
      ]);
      expect(check(report, 'balance-continuity').error).toMatch(/spot|500|40015/i);
      const counts = check(report, 'window-counts');
      expect(counts.error).toMatch(/^spot \[.+\): .+/);
      expect(report.summary).toMatch(/^ {2}window counts: re-count stopped: spot \[.+\): /m);
      const row = await db.prisma.reconciliationReport.findUniqueOrThrow({ where: { id: report.id } });
      expect(row.passed).toBe(false);
    } finally {
      pipeline.sim.faults.clear();
    }
  });

  it('transfers that settle after the sync (their ts moves) are noted, not failed, until the next sync should have seen them', async () => {
    const { sim, runtime } = pipeline;
    const stored = await runtime.pool.query<{ key: string }>(
      `SELECT tx_id || '/' || type AS key FROM broker_transfer WHERE status = 'pending'`,
    );
    expect(stored.rows.length).toBeGreaterThan(0);
    // A client on the exchange's clock, as in production (the pipeline's follows real time).
    const clients = new ClientProvider(runtime.accounts, runtime.redis, {
      clock: () => sim.clock.now(),
      rateBudget: { prefix: randomPrefix('budget'), perSecond: scaledBudgets(50) },
      retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 200 },
    });
    const run = () =>
      runReconciliation({ pool: runtime.pool, clients }, { accountId: pipeline.accountId, recount: 'all', full: true });
    try {
      sim.clock.advance(6 * 3_600_000);
      const settled = sim
        .truth('transfers')
        .filter((r) => r.status !== 'pending' && stored.rows.some((s) => s.key === `${r.txId}/${r.type}`))
        .map((r) => `${r.txId}/${r.type}`);
      expect(settled.length).toBeGreaterThan(0);
      const report = await run();
      const counts = check(report, 'window-counts');
      expect(counts.passed).toBe(true);
      const noted = counts.notes.filter((n) => n.includes('stored as pending are no longer in the window'));
      const total = noted.map((n) => Number(/: (\d+) transfer\(s\)/.exec(n)![1])).reduce((a, b) => a + b, 0);
      expect(total).toBe(settled.length);
      const listed = noted.flatMap((n) => n.slice(n.lastIndexOf(': ') + 2).split(', '));
      expect(listed.length).toBeGreaterThan(0);
      for (const key of listed) expect(settled).toContain(key);

      // Three days on, the nightly sync's lookback should have stored them again: now they are mismatches.
      sim.clock.advance(3 * DAY);
      const later = check(await run(), 'window-counts');
      expect(later.passed).toBe(false);
      expect(later.mismatches.every((m) => m.stream === 'transfers' && m.missing.length === 0)).toBe(true);
      expect(later.mismatches.reduce((sum, m) => sum + m.stored - m.exchange, 0)).toBe(settled.length);
      for (const key of later.mismatches.flatMap((m) => m.extra)) expect(settled).toContain(key);
    } finally {
      sim.clock.set(NOW);
      await clients.close();
    }
  });

  it('a nightly `recent` re-counts each window once: those finished since the last passed re-count began, and one a sync reads again', async () => {
    const { pool } = pipeline.runtime;
    const nightly = () => runReconciliation(pipeline.runtime, { accountId: pipeline.accountId, recount: 'recent' });
    const recent = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM sync_window WHERE status = 'done' AND finished_at >= now() - interval '3 days'`,
    );
    // A full check re-counts every recent window; it passes, so the next night has seen them all.
    const first = check(await reconcile('recent'), 'window-counts');
    expect(first.passed).toBe(true);
    expect(first.windowsRecounted).toBe(recent.rows[0]!.n);
    expect(check(await nightly(), 'window-counts').windowsRecounted).toBe(0);

    // The next night's sync reads one window again (its lookback): that one, and only it, is re-counted.
    const touched = await pool.query<{ id: string }>(
      `UPDATE sync_window SET finished_at = now() WHERE id = (SELECT id FROM sync_window WHERE stream = 'spot' AND status = 'done' ORDER BY window_end DESC LIMIT 1) RETURNING id`,
    );
    expect(touched.rows).toHaveLength(1);
    // The sync finished a moment before the night began. A window finished in the very millisecond a
    // run starts (finished_at is rounded to the millisecond) may or may not be among the windows that
    // run selected, so the next run re-counts it again, on purpose: the test keeps the two apart.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const night = check(await nightly(), 'window-counts');
    expect(night).toMatchObject({ passed: true, windowsRecounted: 1 });
    expect(check(await nightly(), 'window-counts').windowsRecounted).toBe(0);
  });
});
