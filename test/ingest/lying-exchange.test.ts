import { afterEach, describe, expect, it } from 'vitest';

import { createAlertSender } from '../../src/app/observability/alert-sender.ts';
import { createMetricsRegistry } from '../../src/app/observability/scrape-metrics.ts';
import { watchShapeDrift } from '../../src/app/observability/shape-drift-alerts.ts';
import { startBackfill, type StartedBackfill } from '../../src/app/services/backfill.ts';
import { gridCell } from '../../src/exchange/paging/window-planner.ts';
import { streamStatuses } from '../../src/ingest/coverage/stream-status.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { coveredRanges } from '../../src/ingest/coverage/window-store.ts';
import { listShapeDrift } from '../../src/ingest/shape-drift-store.ts';
import { logger } from '../../src/logging/logger.ts';
import { runReconciliation } from '../../src/reconcile/run-reconciliation.ts';
import type { FaultConfig } from '../../src/simulator/index.ts';
import { pageCap } from '../../src/streams/kit/page-window.ts';
import { type Stream, STREAM_DEFINITIONS, STREAMS } from '../../src/streams/registry.ts';
import { spotRecordEndpoint } from '../../src/streams/spot/endpoint.ts';
import { pageSpotRecords } from '../../src/streams/spot/pager.ts';
import { usePipeline } from '../helpers/pipeline.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

const DAY = 86_400_000;
/** Each stream's path, as its declaration has it. */
const PATHS = Object.fromEntries(STREAMS.map((s) => [s, STREAM_DEFINITIONS[s].endpoint.path])) as Record<
  Stream,
  string
>;

// The demo scale: its spot bursts fill more than one page, so a window can cycle its cursors.
const file = usePipeline('lyingexchange', { simulatorClock: true, simulator: { scale: 'demo' } });

afterEach(() => {
  file.pipeline.sim.faults.clear();
});

async function settled(started: StartedBackfill): Promise<void> {
  const ids = started.windows.map((w) => w.id);
  for (const deadline = Date.now() + 60_000; ;) {
    const progress = await windowProgress(file.pipeline.runtime.pool, ids);
    if (progress.every((p) => p.done + p.failed === p.total)) return;
    if (Date.now() > deadline) throw new Error(`not settled: ${JSON.stringify(progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function windowsOf(started: StartedBackfill) {
  const result = await file.pipeline.runtime.pool.query<{ status: string; last_error: string | null; rows: number }>(
    `SELECT status::text, last_error, rows FROM sync_window WHERE id = ANY($1::uuid[]) ORDER BY scope`,
    [started.windows.map((w) => w.id)],
  );
  return result.rows;
}

/** Backfills one stream over [from, to) with the simulator telling one lie on that stream's path. */
async function backfillWithFault(stream: Stream, from: number, to: number, fault: FaultConfig) {
  const { sim, runtime } = file.pipeline;
  sim.faults.set({ ...fault, paths: [PATHS[stream]] });
  const started = await startBackfill(runtime, { account: 'demo', stream, from, to, now: sim.clock.now() });
  expect(started.windows.length).toBeGreaterThan(0);
  await settled(started);
  return started;
}

describe('a 00000 answer without its list', () => {
  it.each([
    ['spot', 'nullData', 200, 170, /spotRecord: HTTP 200 MALFORMED_RESPONSE data: a list is required, not null/],
    ['spot', 'nullList', 140, 110, /MALFORMED_RESPONSE data: a list is required/],
    ['positions', 'nullList', 30, 20, /historyPosition: HTTP 200 MALFORMED_RESPONSE data\.list: a list is required/],
    ['positions', 'nullData', 50, 40, /MALFORMED_RESPONSE data:/],
    ['transfers', 'nullList', 30, 25, /allSubDepositWithdrawal: HTTP 200 MALFORMED_RESPONSE data\.list/],
    ['futures-ledger', 'nullData', 20, 10, /futureRecord: HTTP 200 MALFORMED_RESPONSE data: a list is required/],
  ] as const)(
    'fails the %s window (%s) instead of marking it done: status and reconcile do not call it covered',
    async (stream, page, fromDaysAgo, toDaysAgo, error) => {
      const { sim, runtime, accountId } = file.pipeline;
      const now = sim.clock.now();
      const started = await backfillWithFault(stream, now - fromDaysAgo * DAY, now - toDaysAgo * DAY, { page });
      const windows = await windowsOf(started);
      for (const window of windows) {
        expect(window.status).toBe('failed');
        expect(window.last_error).toMatch(error);
      }
      for (const scope of new Set(started.windows.map((w) => w.scope))) {
        expect(await coveredRanges(runtime.pool, { accountId, stream, scope })).toEqual([]);
      }
      const statuses = (await streamStatuses(runtime.pool, accountId)).filter((s) => s.stream === stream);
      for (const status of statuses) {
        expect(status.covered).toEqual([]);
        expect(status.lastFailure?.error).toMatch(error);
      }
      const report = await runReconciliation(runtime, { accountId, recount: 'none' });
      expect(report.passed).toBe(false);
      const coverage = report.checks.find((check) => check.name === 'coverage');
      expect(coverage?.findings).toEqual(
        expect.arrayContaining([expect.objectContaining({ kind: 'not-done', stream, status: 'failed' })]),
      );
    },
  );
});

describe('cursors that do not move forward', () => {
  it('fail the window naming both cursors when the exchange cycles them (A, B, A)', async () => {
    const { sim, runtime, accountId } = file.pipeline;
    sim.faults.set({ page: 'cycleCursor', paths: [PATHS.spot] });
    const client = await runtime.clients.forAccount(accountId);
    const now = sim.clock.now();
    // Small pages, so one window of the tiny scale takes several of them.
    const pages = pageSpotRecords(client, { start: now - 300 * DAY, end: now - 270 * DAY }, {}, { limit: 5 });
    const cursors: string[] = [];
    const read = async () => {
      for await (const page of pages) {
        cursors.push(page.cursor);
        // Without the check this window never ends: stop the test, not the machine.
        if (cursors.length > 20) throw new Error(`still paging after 20 pages: ${cursors.join(', ')}`);
      }
    };
    const failure = await read().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(cursors).toHaveLength(2);
    const [a, b] = cursors as [string, string];
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe(
      `spotRecord: MALFORMED_RESPONSE cursor: the page asked with cursor ${b} answered cursor ${a}, ` +
        'which this window already read: cursors must move strictly forward',
    );
  });

  it('fail a backfill window naming both cursors, without marking it done', async () => {
    const { sim, runtime, accountId } = file.pipeline;
    // The demo scale's bursts share one ts and hold more than a page (500): that window pages twice.
    const counts = new Map<string, number>();
    for (const r of sim.truth('spot')) counts.set(r.ts, (counts.get(r.ts) ?? 0) + 1);
    const [burst, size] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    expect(size).toBeGreaterThan(500);
    const at = Number(burst);
    // A day either side, within the burst's own grid cell: one window on any date (any-date.sh met
    // the days where the range crossed a cell and the burst's window was not the first).
    const cell = gridCell(spotRecordEndpoint, at);
    const started = await backfillWithFault('spot', Math.max(cell.start, at - DAY), Math.min(cell.end, at + DAY), {
      page: 'cycleCursor',
    });
    const [window] = await windowsOf(started);
    expect(window!.status).toBe('failed');
    expect(window!.last_error).toMatch(
      /^MalformedResponseError: spotRecord: MALFORMED_RESPONSE cursor: the page asked with cursor (\d+) answered cursor (\d+), which this window already read: cursors must move strictly forward$/,
    );
    const [, b, a] = /cursor (\d+) answered cursor (\d+)/.exec(window!.last_error!)!;
    // A was the first page's cursor, B the second's: B is older (smaller) than A.
    expect(BigInt(b!)).toBeLessThan(BigInt(a!));
    expect(await coveredRanges(runtime.pool, { accountId, stream: 'spot', scope: '' })).toEqual([]);
  });

  it('are bounded by a page cap of one record per second of the window span, at least 100 pages', () => {
    expect(pageCap({ start: 0, end: 30 * DAY }, 500)).toBe(5_184);
    expect(pageCap({ start: 0, end: 90 * DAY }, 100)).toBe(77_760);
    expect(pageCap({ start: 0, end: 7 * DAY }, 100)).toBe(6_048);
    expect(pageCap({ start: 0, end: 60_000 }, 500)).toBe(100);
  });
});

describe('two records with one id in one page', () => {
  it('fail the window naming the id; neither record is stored', async () => {
    const { sim, runtime, accountId } = file.pipeline;
    const now = sim.clock.now();
    // One whole 30-day grid cell, so the backfill is one window (window-planner.ts).
    const { start: from, end: to } = gridCell(spotRecordEndpoint, now - 240 * DAY);
    const truth = sim.truth('spot').filter((r) => Number(r.ts) >= from && Number(r.ts) < to);
    expect(truth.length).toBeGreaterThanOrEqual(2);
    const started = await backfillWithFault('spot', from, to, { page: 'duplicateId' });
    const [window] = await windowsOf(started);
    // The simulator gives the page's second record (newest first) the first one's id.
    expect(window!.status).toBe('failed');
    expect(window!.last_error).toBe(
      `DuplicateRecordError: one page holds two different spot_record records with the key record_id=${truth[0]!.id}: neither is stored`,
    );
    const stored = await runtime.pool.query(
      `SELECT count(*)::int AS n FROM spot_record WHERE account_id = $1 AND ts >= to_timestamp($2 / 1000.0) AND ts < to_timestamp($3 / 1000.0)`,
      [accountId, from, to],
    );
    expect(stored.rows[0].n).toBe(0);
  });
});

describe('every refused page, whatever refused it', () => {
  it('is counted by endpoint and field (status, /metrics) and alerted, not left to wait for the horizon', async () => {
    const { runtime } = file.pipeline;
    // The files' earlier tests refused pages for a null list or data, a cycling cursor and (not a
    // refused answer: a stored-page check) a duplicate id.
    const refused = (await listShapeDrift(runtime.pool)).filter((row) => row.kind === 'refused');
    const kinds = refused.map((row) => `${row.endpoint} ${row.field}`).sort();
    expect(kinds).toEqual([
      'allSubDepositWithdrawal list',
      'futureRecord data',
      'historyPosition data',
      'historyPosition list',
      'spotRecord cursor',
      'spotRecord data',
    ]);
    for (const row of refused) expect(row.count).toBeGreaterThan(0);
    const page = await createMetricsRegistry(runtime).metrics();
    expect(page).toMatch(
      /^ledgerline_exchange_answers_refused_total\{endpoint="spotRecord",field="cursor"\} [1-9]\d*$/m,
    );
    const webhook = await startWebhookReceiver();
    try {
      const sender = createAlertSender({ url: webhook.url, log: logger('alerts'), attempts: 1 });
      const watch = watchShapeDrift({ pool: runtime.pool, sender, log: logger('alerts'), checkAtStart: false });
      const alerts = await watch.check();
      watch.close();
      await sender.settled();
      expect(alerts.map((a) => a.event)).toEqual(refused.map(() => 'exchange_answer_refused'));
      expect(webhook.received).toContainEqual(
        expect.objectContaining({ event: 'exchange_answer_refused', endpoint: 'spotRecord', field: 'cursor' }),
      );
    } finally {
      await webhook.close();
    }
  });
});
