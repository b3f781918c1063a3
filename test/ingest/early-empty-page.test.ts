import { afterEach, describe, expect, it } from 'vitest';

import { startBackfill } from '../../src/app/services/backfill.ts';
import { gridCell } from '../../src/exchange/paging/window-planner.ts';
import { postgresPageStore } from '../../src/ingest/coverage/postgres-page-store.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { coveredRanges, ensureWindows, startWindow } from '../../src/ingest/coverage/window-store.ts';
import { runWindow } from '../../src/ingest/run-window.ts';
import type { CountCheck } from '../../src/reconcile/report-types.ts';
import { runReconciliation } from '../../src/reconcile/run-reconciliation.ts';
import type { Page } from '../../src/streams/kit/page-window.ts';
import { type Stream, STREAM_DEFINITIONS, STREAMS } from '../../src/streams/registry.ts';
import { usePipeline } from '../helpers/pipeline.ts';

/*
 * Issue 43, item 2: an exchange that answers a window's first cursor request with an empty list
 * (no cursor for a next page: the honest end's shape) after a full page. Every paged stream of the
 * registry refuses it through its declared paging strategy, a read resumed from its stored cursor
 * too, and a read that ended on an empty page after a full one does not vouch for itself.
 */

const DAY = 86_400_000;
/** A page size every stream's recent history fills more than once in the test's window. */
const SMALL = 5;

const file = usePipeline('earlyempty', { simulatorClock: true, simulator: { scale: 'demo' } });

afterEach(() => {
  file.pipeline.sim.faults.clear();
});

const pathOf = (stream: Stream) => STREAM_DEFINITIONS[stream].endpoint.path;

/** The window's pages as read, or the error that stopped them. */
async function read(pages: AsyncIterable<Page<unknown>>): Promise<{ sizes: number[]; error?: Error }> {
  const sizes: number[] = [];
  try {
    for await (const page of pages) sizes.push(page.items.length);
    return { sizes };
  } catch (error) {
    return { sizes, error: error as Error };
  }
}

/**
 * A recent window of the stream (within every horizon and span), and a scope whose first page of
 * SMALL is full: the newest of up to six windows back that holds more than two pages (a sparse
 * history, the P2P ledger's ~14 records a month, may hold fewer in the latest 30 days).
 */
async function denseWindow(stream: Stream) {
  const { sim, runtime, accountId } = file.pipeline;
  const definition = STREAM_DEFINITIONS[stream];
  const now = sim.clock.now();
  const days = Math.min(definition.endpoint.maxSpanDays, 30);
  const horizonDays = (definition.endpoint as { horizonDays?: number }).horizonDays;
  const client = await runtime.clients.forAccount(accountId);
  const tried: string[] = [];
  for (let back = 0; back < 6; back++) {
    const window = { start: now - ((back + 1) * days + 1) * DAY, end: now - (back * days + 1) * DAY };
    if (horizonDays !== undefined && window.start < now - (horizonDays - 1) * DAY) break;
    tried.push(JSON.stringify(window));
    for (const scope of definition.scopes) {
      const honest = await read(definition.pages(client, window, scope, null, { limit: SMALL }));
      expect(honest.error).toBeUndefined();
      if (honest.sizes.length > 2 && honest.sizes[0] === SMALL) return { client, window, scope, honest };
    }
  }
  throw new Error(`${stream}: no scope fills two pages of ${SMALL} in ${tried.join(', ')}`);
}

describe('an empty page after a full one, in every paged stream of the registry', () => {
  it.each(STREAMS)(
    '%s: refused (the window holds older records), where the honest exchange pages on',
    async (stream) => {
      const { sim } = file.pipeline;
      const { client, window, scope, honest } = await denseWindow(stream);
      sim.faults.set({ page: 'endEarly', paths: [pathOf(stream)] });
      const lying = await read(STREAM_DEFINITIONS[stream].pages(client, window, scope, null, { limit: SMALL }));
      expect(lying.sizes).toEqual([SMALL]);
      expect(lying.error?.name).toBe('MalformedResponseError');
      expect(lying.error?.message).toMatch(
        new RegExp(
          `^${STREAM_DEFINITIONS[stream].endpoint.name}: MALFORMED_RESPONSE list: the page asked with cursor \\S+ answered an empty list after a full page of ${SMALL}, but the window holds older records: an empty page before the window's end$`,
        ),
      );
      // The honest read went on past that page.
      expect(honest.sizes.reduce((a, b) => a + b, 0)).toBeGreaterThan(SMALL);
    },
    60_000,
  );
});

describe('a backfill meeting it at the declared page size', () => {
  it.each(['positions', 'futures-ledger'] as const)(
    '%s: the window fails, nothing of it is covered',
    async (stream) => {
      const { sim, runtime, accountId } = file.pipeline;
      const definition = STREAM_DEFINITIONS[stream];
      const now = sim.clock.now();
      // The grid cell (within the horizon) holding the most records: more than one page of them.
      const counts = new Map<number, number>();
      for (const r of sim.truth(stream) as { ts?: string; utime?: string }[]) {
        const at = Number(r.ts ?? r.utime);
        if (at < now - 80 * DAY || at >= now - DAY) continue;
        const cell = gridCell(definition.endpoint, at).start;
        counts.set(cell, (counts.get(cell) ?? 0) + 1);
      }
      const [cell, size] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
      expect(size).toBeGreaterThan(definition.endpoint.pageLimit * definition.scopes.length);
      const { end } = gridCell(definition.endpoint, cell);
      const from = Math.max(cell, now - 80 * DAY);
      sim.faults.set({ page: 'endEarly', paths: [pathOf(stream)] });
      const started = await startBackfill(runtime, {
        account: 'demo',
        stream,
        from,
        to: Math.min(end, now - DAY),
        now,
      });
      const workers = file.pipeline.startWorkers();
      try {
        const ids = started.windows.map((w) => w.id);
        for (const deadline = Date.now() + 120_000; ;) {
          const progress = await windowProgress(runtime.pool, ids);
          if (progress.every((p) => p.done + p.failed === p.total)) break;
          if (Date.now() > deadline) throw new Error(`not settled: ${JSON.stringify(progress)}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } finally {
        await workers.close();
      }
      const { rows } = await runtime.pool.query<{ scope: string; status: string; last_error: string | null }>(
        `SELECT scope, status::text, last_error FROM sync_window WHERE id = ANY($1::uuid[])`,
        [started.windows.map((w) => w.id)],
      );
      const refused = rows.filter((w) => /an empty page before the window's end/.test(w.last_error ?? ''));
      // The scopes with more than a page failed; none of them is covered.
      expect(refused.length).toBeGreaterThan(0);
      for (const window of refused) {
        expect(window.status).toBe('failed');
        expect(await coveredRanges(runtime.pool, { accountId, stream, scope: window.scope })).toEqual([]);
      }
    },
    180_000,
  );
});

describe('a read resumed from its stored cursor', () => {
  async function firstPageStored(stream: Stream, days: number) {
    const { sim, runtime, accountId } = file.pipeline;
    const now = sim.clock.now();
    const definition = STREAM_DEFINITIONS[stream];
    const key = { accountId, stream, scope: definition.scopes[0]!, start: now - (days + 1) * DAY, end: now - DAY };
    const [created] = await ensureWindows(runtime.pool, [key]);
    const window = (await startWindow(runtime.pool, created!.id))!;
    const client = await runtime.clients.forAccount(accountId);
    const store = postgresPageStore(runtime.pool);
    // The run hands its slot back after its first page, as an ingest job waiting for its budget does.
    const first = await runWindow({ store, client, window, shouldYield: () => true });
    expect(first).toMatchObject({ done: false, pages: 1 });
    return { client, store, window: (await startWindow(runtime.pool, window.id, false))! };
  }

  it('is refused when the page after its stored full page is empty while older records exist', async () => {
    const { sim } = file.pipeline;
    const stream: Stream = 'futures-ledger';
    const { client, store, window } = await firstPageStored(stream, 30);
    expect(window.rows).toBe(STREAM_DEFINITIONS[stream].endpoint.pageLimit);
    sim.faults.set({ page: 'endEarly', paths: [pathOf(stream)] });
    await expect(runWindow({ store, client, window })).rejects.toThrow(
      /answered an empty list after a page of an earlier run \(500\), but the window holds older records/,
    );
  }, 60_000);

  it('ended honestly on an empty page after a full one: done, and not vouched for by its own marks', async () => {
    const { sim, runtime, accountId } = file.pipeline;
    const stream: Stream = 'spot';
    const now = sim.clock.now();
    // A window of exactly one page: the second request is the (honest) empty one.
    const key = { accountId, stream, scope: '', start: now - 3 * DAY, end: now - 2 * DAY };
    const size = sim.truth('spot').filter((r) => Number(r.ts) >= key.start && Number(r.ts) < key.end).length;
    expect(size).toBeGreaterThan(0);
    const [created] = await ensureWindows(runtime.pool, [key]);
    const window = (await startWindow(runtime.pool, created!.id))!;
    const client = await runtime.clients.forAccount(accountId);
    const definition = STREAM_DEFINITIONS[stream];
    const result = await runWindow({
      store: postgresPageStore(runtime.pool),
      client,
      window,
      pager: (resumeFrom, endsShort, resumed) =>
        definition.pages(client, window, '', resumeFrom, { endsShort, resumed, limit: size }),
    });
    expect(result.done).toBe(true);
    const marked = await runtime.pool.query<{ status: string; ended: boolean; rows: number }>(
      `SELECT status::text, ended_after_full_page AS ended, rows FROM sync_window WHERE id = $1`,
      [window.id],
    );
    expect(marked.rows[0]).toEqual({ status: 'done', ended: true, rows: size });

    // The night's re-count: the read is fresh, yet its window is asked of the exchange.
    const report = await runReconciliation(runtime, { accountId, recount: 'recent' });
    const counts = report.checks.find((c): c is CountCheck => c.name === 'window-counts')!;
    // Spot's only done window is this one: its pages were asked again.
    expect(counts.requestsByStream?.spot ?? 0).toBeGreaterThan(0);
  }, 120_000);
});
