import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ExchangeClient } from '../../src/exchange/index.ts';
import { instant } from '../../src/reconcile/describe.ts';
import type { RecountMode } from '../../src/reconcile/recount-mode.ts';
import type { PagingCheck, ReconciliationReport } from '../../src/reconcile/report-types.ts';
import { runReconciliation } from '../../src/reconcile/run-reconciliation.ts';
import { pageSpotRecords } from '../../src/streams/spot/pager.ts';
import { spotRecord } from '../../src/streams/spot/pager.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { backfill, DAY, setAside } from './support.ts';

// 5,000 spot records with one burst of 520 sharing one ts: more than the 500 a page holds.
const db = useTestDatabase('pagingstuck');
const NOW = Date.now();
let pipeline: Pipeline;
let client: ExchangeClient;
/** The burst's ts, and the window ingestion read it in: [start, burst + 1), so its first page is 500 records of the burst. */
let burst: number;
let window: { start: number; end: number };

beforeAll(async () => {
  pipeline = await startPipeline({ databaseUrl: db.url, simulator: { now: NOW, scale: { spotRecords: 5_000 } } });
  const counts = new Map<string, number>();
  for (const r of pipeline.sim.truth('spot')) counts.set(r.ts, (counts.get(r.ts) ?? 0) + 1);
  const bursts = [...counts].filter(([, n]) => n > 500);
  expect(bursts).toEqual([[expect.any(String), 520]]);
  burst = Number(bursts[0]![0]);
  const workers = pipeline.startWorkers();
  await backfill(pipeline, { stream: 'spot', from: burst + 1 - 300 * DAY, to: burst + 1, now: NOW });
  await workers.close();
  const last = await pipeline.runtime.pool.query<{ start: string }>(
    `SELECT (extract(epoch from max(window_start)) * 1000)::bigint::text AS start FROM sync_window`,
  );
  window = { start: Number(last.rows[0]!.start), end: burst + 1 };
  client = await pipeline.runtime.clients.forAccount(pipeline.accountId);
}, 120_000);
afterAll(async () => {
  await pipeline?.close();
});

async function pagingCheck(
  recount: RecountMode,
  pageLimits?: { spot: number },
): Promise<{ report: ReconciliationReport; check: PagingCheck }> {
  // A full check: the tests store what a stuck pager would have stored without a window read.
  const report = await runReconciliation(pipeline.runtime, {
    accountId: pipeline.accountId,
    recount,
    pageLimits,
    full: true,
  });
  const check = report.checks.find((c): c is PagingCheck => c.name === 'paging-stuck');
  return { report, check: check! };
}

/**
 * What a pager that moves by time alone reads of a window: the next page ends
 * at the oldest ts of the last one (inclusive, duplicates dropped), and when a
 * page brings nothing new (full with one ts: stuck) it steps past that ts.
 */
async function timePagedIds(start: number, end: number): Promise<Set<string>> {
  const ids = new Set<string>();
  let endTime = end - 1;
  while (endTime >= start) {
    const page = await spotRecord(client, { startTime: String(start), endTime: String(endTime), limit: 500 });
    if (page.length === 0) break;
    const fresh = page.filter((r) => !ids.has(r.id));
    for (const r of page) ids.add(r.id);
    const oldest = Number(page.at(-1)!.ts);
    endTime = fresh.length === 0 || page.length < 500 ? oldest - 1 : oldest;
  }
  return ids;
}

describe('paging stuck: no page came back full with a single ts', () => {
  it('passes on id-paged data whose window began with a full page of one ts (a burst of 520)', async () => {
    // The scenario is real: the window's first page is full and all of it shares the burst's ts.
    const first = await pageSpotRecords(client, window)[Symbol.asyncIterator]().next();
    expect(first.value!.items).toHaveLength(500);
    expect(new Set(first.value!.items.map((r) => r.ts))).toEqual(new Set([String(burst)]));

    // 520 is not a whole number of pages: no stuck pager leaves that, so the exchange is not asked.
    const { check } = await pagingCheck('recent');
    expect(check.passed).toBe(true);
    expect(check.suspects).toEqual([
      {
        stream: 'spot',
        scope: '',
        ts: burst,
        stored: 520,
        pageLimit: 500,
        exchange: null,
        window: { stream: 'spot', scope: '', ...window },
        verdict: 'plausible',
      },
    ]);
    // Offline the same.
    const offline = await pagingCheck('none');
    expect(offline.check.passed).toBe(true);
    expect(offline.check.suspects.map((s) => s.verdict)).toEqual(['plausible']);
  });

  it('fails on what a time-paged reader stored: it got stuck on the full page and skipped the rest of the ts', async () => {
    const timePaged = await timePagedIds(window.start, window.end);
    const truth = pipeline.sim.truth('spot').filter((r) => Number(r.ts) >= window.start && Number(r.ts) < window.end);
    expect(truth.length - timePaged.size).toBe(20);
    // Store exactly what that pager read: the window's other rows go.
    const aside = await setAside(
      pipeline,
      'spot_record',
      `ts >= timestamptz 'epoch' + $1::bigint * interval '1 millisecond' AND record_id <> ALL($2::text[])`,
      [String(window.start), [...timePaged]],
    );
    expect(aside.rows).toBe(20);
    try {
      const { report, check } = await pagingCheck('recent');
      expect(check.passed).toBe(false);
      expect(check.suspects).toEqual([
        expect.objectContaining({ ts: burst, stored: 500, exchange: 520, verdict: 'stuck' }),
      ]);
      const name = `spot [${instant(window.start)}, ${instant(window.end)})`;
      expect(report.summary).toContain(
        `paging stuck: window ${name}: ts ${instant(burst)} (${burst}) has 500 stored records ` +
          '(page limit 500), the exchange has 520: paging got stuck on a full page with a single ts',
      );
      expect(report.summary).toMatch(/^FAIL {2}paging stuck/m);
      // Without the exchange, exactly one full page of one ts is what a stuck pager leaves: it fails unconfirmed.
      const offline = await pagingCheck('none');
      expect(offline.check.passed).toBe(false);
      expect(offline.check.suspects.map((s) => s.verdict)).toEqual(['unconfirmed']);
    } finally {
      await aside.restore();
    }
  });

  it('a ts holding a whole number of pages is settled by the exchange: verified passes, unconfirmed fails', async () => {
    // Judged with pages of 260, the burst is exactly two full pages of one ts.
    const online = await pagingCheck('recent', { spot: 260 });
    expect(online.check.passed).toBe(true);
    expect(online.check.suspects).toEqual([
      expect.objectContaining({ stored: 520, exchange: 520, verdict: 'verified' }),
    ]);
    const offline = await pagingCheck('none', { spot: 260 });
    expect(offline.check.passed).toBe(false);
    expect(offline.check.failures[0]).toMatch(
      /has 520 stored records \(page limit 260\), a whole number of full pages/,
    );
  });
});
