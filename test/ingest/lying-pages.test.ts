import { afterEach, describe, expect, it } from 'vitest';

import { startBackfill, type StartedBackfill } from '../../src/app/services/backfill.ts';
import { gridCell } from '../../src/exchange/paging/window-planner.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { coveredRanges } from '../../src/ingest/coverage/window-store.ts';
import { listShapeDrift } from '../../src/ingest/shape-drift-store.ts';
import type { FaultConfig } from '../../src/simulator/index.ts';
import { pageHistoryPositions } from '../../src/streams/positions/pager.ts';
import { type Stream, STREAM_DEFINITIONS, STREAMS } from '../../src/streams/registry.ts';
import { spotRecordEndpoint } from '../../src/streams/spot/endpoint.ts';
import { pageSpotRecords } from '../../src/streams/spot/pager.ts';
import { usePipeline } from '../helpers/pipeline.ts';

/*
 * Issue 34: an exchange that garbles a field carrying meaning (finding 1) or answers an empty page
 * before a window's end (finding 6). Either refuses the page as a cycling cursor is refused: the
 * window fails, nothing of it is stored empty or marked covered, and the refusal is counted for its
 * alert.
 */

const DAY = 86_400_000;
/** Each stream's path, as its declaration has it. */
const PATHS = Object.fromEntries(STREAMS.map((s) => [s, STREAM_DEFINITIONS[s].endpoint.path])) as Record<
  Stream,
  string
>;
const TABLES = {
  spot: 'spot_record',
  'futures-ledger': 'futures_ledger_record',
  positions: 'futures_position',
} as const;

// The demo scale: its spot bursts fill more than one page.
const file = usePipeline('lyingpages', { simulatorClock: true, simulator: { scale: 'demo' } });

afterEach(() => {
  file.pipeline.sim.faults.clear();
});

async function settled(started: StartedBackfill): Promise<void> {
  const ids = started.windows.map((w) => w.id);
  for (const deadline = Date.now() + 90_000; ;) {
    const progress = await windowProgress(file.pipeline.runtime.pool, ids);
    if (progress.every((p) => p.done + p.failed === p.total)) return;
    if (Date.now() > deadline) throw new Error(`not settled: ${JSON.stringify(progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function backfillWithFault(stream: Stream, from: number, to: number, fault: FaultConfig) {
  const { sim, runtime } = file.pipeline;
  sim.faults.set({ ...fault, paths: [PATHS[stream]] });
  const started = await startBackfill(runtime, { account: 'demo', stream, from, to, now: sim.clock.now() });
  expect(started.windows.length).toBeGreaterThan(0);
  await settled(started);
  const windows = await runtime.pool.query<{ status: string; last_error: string | null; attempts: number }>(
    `SELECT status::text, last_error, attempts FROM sync_window WHERE id = ANY($1::uuid[]) ORDER BY scope`,
    [started.windows.map((w) => w.id)],
  );
  return { started, windows: windows.rows };
}

async function storedRows(stream: keyof typeof TABLES, from: number, to: number): Promise<number> {
  const { runtime, accountId } = file.pipeline;
  const ts = stream === 'positions' ? 'updated_time' : 'ts';
  const result = await runtime.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${TABLES[stream]}
      WHERE account_id = $1 AND ${ts} >= to_timestamp($2 / 1000.0) AND ${ts} < to_timestamp($3 / 1000.0)`,
    [accountId, from, to],
  );
  return result.rows[0]!.n;
}

async function expectNotCovered(stream: Stream, started: StartedBackfill): Promise<void> {
  const { runtime, accountId } = file.pipeline;
  for (const scope of new Set(started.windows.map((w) => w.scope))) {
    expect(await coveredRanges(runtime.pool, { accountId, stream, scope })).toEqual([]);
  }
}

describe('a field that pairs, signs or names money, sent garbled (finding 1)', () => {
  it.each([
    [
      'spot',
      330,
      300,
      /spotRecord: HTTP 200 MALFORMED_RESPONSE data\[0\]\.bizOrderId: Invalid input: expected string, received number/,
    ],
    ['positions', 60, 50, /historyPosition: HTTP 200 MALFORMED_RESPONSE data\.list\[0\]\.holdSide/],
    [
      'futures-ledger',
      30,
      20,
      /futureRecord: HTTP 200 MALFORMED_RESPONSE data\[0\]\.symbol: Invalid input: expected string, received number/,
    ],
  ] as const)(
    'fails the %s window instead of storing it empty: nothing stored, nothing covered, the refusal counted',
    async (stream, fromDaysAgo, toDaysAgo, error) => {
      const now = file.pipeline.sim.clock.now();
      const [from, to] = [now - fromDaysAgo * DAY, now - toDaysAgo * DAY];
      const { started, windows } = await backfillWithFault(stream, from, to, { page: 'garbledMeaning' });
      const read = windows.filter((w) => w.last_error !== null);
      expect(read.length).toBeGreaterThan(0);
      for (const window of windows) expect(window.status).toBe('failed');
      for (const window of read) expect(window.last_error).toMatch(error);
      expect(await storedRows(stream, from, to)).toBe(0);
      await expectNotCovered(stream, started);
      const refused = (await listShapeDrift(file.pipeline.runtime.pool)).filter((row) => row.kind === 'refused');
      expect(refused.map((row) => row.field)).toEqual(
        expect.arrayContaining([stream === 'spot' ? 'bizOrderId' : stream === 'positions' ? 'holdSide' : 'symbol']),
      );
    },
  );
});

describe('an empty page before the window ends (finding 6)', () => {
  it('after a full page, while older records exist, fails the spot window for good like a cycling cursor: nothing covered', async () => {
    const { sim } = file.pipeline;
    const counts = new Map<string, number>();
    for (const r of sim.truth('spot')) counts.set(r.ts, (counts.get(r.ts) ?? 0) + 1);
    const [burst, size] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    expect(size).toBeGreaterThan(500);
    const { start: from, end: to } = gridCell(spotRecordEndpoint, Number(burst));
    const { started, windows } = await backfillWithFault('spot', from, to, { page: 'emptyMidWindow' });
    expect(windows).toHaveLength(1);
    expect(windows[0]!.status).toBe('failed');
    expect(windows[0]!.last_error).toMatch(
      /^MalformedResponseError: spotRecord: MALFORMED_RESPONSE list: the page asked with cursor \d+ answered an empty list after a full page of 500, but the window holds older records: an empty page before the window's end$/,
    );
    await expectNotCovered('spot', started);
  });

  it('whose own cursor says more follows, is refused by the positions pager', async () => {
    const { sim, runtime, accountId } = file.pipeline;
    sim.faults.set({ page: 'emptyMidWindow', paths: [PATHS.positions] });
    const client = await runtime.clients.forAccount(accountId);
    const now = sim.clock.now();
    const pages = pageHistoryPositions(client, { start: now - 60 * DAY, end: now - 30 * DAY }, {}, { limit: 5 });
    const read: number[] = [];
    const failure = await (async () => {
      for await (const page of pages) read.push(page.items.length);
    })().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(read).toEqual([5]);
    expect((failure as Error).message).toMatch(
      /^historyPosition: MALFORMED_RESPONSE list: the page asked with cursor (\d+) answered an empty list with the cursor \d+ for a next page: an empty page before the window's end$/,
    );
  });

  it('after a full page that was the last, ends the window: an honest exchange is not refused', async () => {
    const { sim, runtime, accountId } = file.pipeline;
    const now = sim.clock.now();
    const window = { start: now - 300 * DAY, end: now - 290 * DAY };
    const inWindow = sim.truth('spot').filter((r) => Number(r.ts) >= window.start && Number(r.ts) < window.end);
    expect(inWindow.length).toBeGreaterThan(1);
    const client = await runtime.clients.forAccount(accountId);
    // One page holds exactly the window's records: the next, empty page is its end, yielded as the
    // last page and marked so its read does not vouch for itself (issue 43).
    const pages = pageSpotRecords(client, window, {}, { limit: inWindow.length });
    const read: [number, boolean][] = [];
    for await (const page of pages) read.push([page.items.length, page.endedAfterFullPage ?? false]);
    expect(read).toEqual([
      [inWindow.length, false],
      [0, true],
    ]);
  });
});
