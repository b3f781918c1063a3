import { afterEach, describe, expect, it, vi } from 'vitest';

import { startBackfill, type StartedBackfill } from '../../src/app/services/backfill.ts';
import { planAndEnqueueSync } from '../../src/app/services/plan-and-enqueue-sync.ts';
import { exitCodeFor } from '../../src/cli/exit-codes.ts';
import { watchWindows } from '../../src/cli/watch-windows.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { futureRecordEndpoint } from '../../src/streams/futures-ledger/endpoint.ts';
import { marginRecordEndpoint } from '../../src/streams/margin-ledger/endpoint.ts';
import { p2pRecordEndpoint } from '../../src/streams/p2p-ledger/endpoint.ts';
import { historyPositionEndpoint } from '../../src/streams/positions/endpoint.ts';
import { type Stream, STREAM_DEFINITIONS, STREAMS } from '../../src/streams/registry.ts';
import { spotRecordEndpoint } from '../../src/streams/spot/endpoint.ts';
import { allSubDepositWithdrawalEndpoint } from '../../src/streams/transfers/endpoint.ts';
import { rangeInOneCell } from '../helpers/grid-range.ts';
import { usePipeline } from '../helpers/pipeline.ts';

const DAY = 86_400_000;
/** Each stream's path, as its declaration has it. */
const PATHS = Object.fromEntries(STREAMS.map((s) => [s, STREAM_DEFINITIONS[s].endpoint.path])) as Record<
  Stream,
  string
>;

// Enough records that one window of each stream takes more than one page: spot (500 a page)
// ~190 a day, positions and transfers (100 a page) ~55 a day each.
const file = usePipeline('repeatedrecord', { simulatorClock: true, simulator: { scale: { spotRecords: 70_000 } } });

afterEach(() => {
  file.pipeline.sim.faults.clear();
  vi.restoreAllMocks();
});

/**
 * One window per stream (scope) holding at least two pages: a range of each stream's dense past that
 * lies inside one grid cell on any date (`rangeInOneCell`), ending this many days before the
 * simulator's now, and this many days long.
 */
const RANGES: Record<Stream, { endpoint: Parameters<typeof rangeInOneCell>[0]; endDaysAgo: number; days: number }> = {
  spot: { endpoint: spotRecordEndpoint, endDaysAgo: 55, days: 5 },
  positions: { endpoint: historyPositionEndpoint, endDaysAgo: 0, days: 10 },
  transfers: { endpoint: allSubDepositWithdrawalEndpoint, endDaysAgo: 1, days: 7 },
  'futures-ledger': { endpoint: futureRecordEndpoint, endDaysAgo: 0, days: 10 },
  'margin-ledger': { endpoint: marginRecordEndpoint, endDaysAgo: 0, days: 10 },
  'p2p-ledger': { endpoint: p2pRecordEndpoint, endDaysAgo: 0, days: 10 },
};

/** The natural key a stored row is found by, from the error's `column=value, ...`. */
const TABLES = {
  spot: { table: 'spot_record', id: 'id' },
  positions: { table: 'futures_position', id: 'positionId' },
  transfers: { table: 'broker_transfer', id: 'txId' },
  'futures-ledger': { table: 'futures_ledger_record', id: 'id' },
} as const;

/** Runs the backfill as the CLI does: progress until every window is done or failed; the error it ends with. */
async function watched(started: StartedBackfill): Promise<unknown> {
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  return watchWindows(file.pipeline.runtime, started, { title: 'test', inProcessWorker: true }).then(
    () => undefined,
    (error: unknown) => error,
  );
}

async function windowsOf(started: StartedBackfill) {
  const result = await file.pipeline.runtime.pool.query<{ status: string; last_error: string | null; rows: number }>(
    `SELECT status::text, last_error, rows FROM sync_window WHERE id = ANY($1::uuid[]) ORDER BY scope`,
    [started.windows.map((w) => w.id)],
  );
  return result.rows;
}

describe('one id, one record, across the pages of one read', () => {
  it.each(['spot', 'positions', 'transfers', 'futures-ledger'] as const)(
    '%s: a later page repeating an earlier page’s id with other content fails the window and keeps the first record',
    async (stream) => {
      const { sim, runtime, accountId } = file.pipeline;
      const now = sim.clock.now();
      const { endpoint, endDaysAgo, days } = RANGES[stream];
      const { from, to } = rangeInOneCell(endpoint, now - endDaysAgo * DAY, days);
      sim.faults.set({ page: 'repeatId', paths: [PATHS[stream]] });
      const started = await startBackfill(runtime, { account: 'demo', stream, from, to, now });
      // The backfill command ends in WindowsFailedError: exit 1, not 0.
      const error = await watched(started);
      expect(error).toMatchObject({ name: 'WindowsFailedError' });
      expect(exitCodeFor(error)).toBe(1);

      const { table, id } = TABLES[stream];
      for (const window of await windowsOf(started)) {
        expect(window.status).toBe('failed');
        expect(window.last_error).toMatch(
          new RegExp(
            `^DuplicateRecordError: a later page of one read repeats the ${table} key (.+) with other content: ` +
              'the record stored first is kept, the page is not stored$',
          ),
        );
        // The key is the earlier page's last record: stored as first read, not replaced.
        const key = /repeats the \w+ key (.+) with other content/.exec(window.last_error!)![1]!;
        const values = Object.fromEntries(key.split(', ').map((pair) => pair.split('=') as [string, string]));
        const stored = await runtime.pool.query<{ raw: Record<string, unknown> }>(
          `SELECT raw FROM ${table} WHERE account_id = $1 AND ${Object.keys(values)
            .map((column, i) => `${column} = $${i + 2}`)
            .join(' AND ')}`,
          [accountId, ...Object.values(values)],
        );
        expect(stored.rows).toHaveLength(1);
        const truth = (sim.truth(stream) as Record<string, unknown>[]).filter(
          (r) => r[id] === Object.values(values)[0] && (stream !== 'transfers' || r.type === values.type),
        );
        expect(stored.rows[0]!.raw).toEqual(truth[0]);
        // Only the pages before the repeat are stored: the first page of the window.
        expect(window.rows).toBeGreaterThan(0);
      }
    },
  );
});

describe('a later read that finds a record changed', () => {
  it('refetch: updates the rows, keeps each old raw in record_revision and counts them', async () => {
    const { sim, runtime, accountId } = file.pipeline;
    const now = sim.clock.now();
    // One window on any date: its progress line below counts "1/1 windows".
    const range = {
      account: 'demo',
      stream: 'spot' as const,
      ...rangeInOneCell(spotRecordEndpoint, now - 78 * DAY, 2),
      now,
    };
    expect(await watched(await startBackfill(runtime, range))).toBeUndefined();
    const before = await runtime.pool.query<{ record_id: string; raw: Record<string, unknown> }>(
      `SELECT record_id, raw FROM spot_record WHERE account_id = $1 AND ts >= to_timestamp($2 / 1000.0)
          AND ts < to_timestamp($3 / 1000.0) ORDER BY record_id`,
      [accountId, range.from, range.to],
    );
    expect(before.rows.length).toBeGreaterThan(100);

    // The exchange corrected its records since: the refetch reads every one with other content.
    sim.faults.set({ page: 'restate', paths: [PATHS.spot] });
    const started = await startBackfill(runtime, { ...range, refetch: true });
    expect(await watched(started)).toBeUndefined();
    const [progress] = await windowProgress(
      runtime.pool,
      started.windows.map((w) => w.id),
    );
    expect(progress).toMatchObject({ stream: 'spot', revised: before.rows.length });
    expect(vi.mocked(console.log)).toHaveBeenCalledWith(
      `spot: 1/1 windows done, ${before.rows.length} rows read, ${before.rows.length} records revised`,
    );

    const after = await runtime.pool.query<{ record_id: string; raw: Record<string, unknown> }>(
      `SELECT record_id, raw FROM spot_record WHERE account_id = $1 AND record_id = ANY($2::text[]) ORDER BY record_id`,
      [accountId, before.rows.map((r) => r.record_id)],
    );
    expect(after.rows).toEqual(before.rows.map((r) => ({ ...r, raw: { ...r.raw, restated: 'true' } })));
    const revisions = await runtime.pool.query(
      `SELECT stream::text, record_key, old_raw, new_raw, window_id FROM record_revision
        WHERE account_id = $1 AND stream = 'spot' ORDER BY record_key->>'record_id'`,
      [accountId],
    );
    expect(revisions.rows).toEqual(
      before.rows.map((r) => ({
        stream: 'spot',
        record_key: { record_id: r.record_id },
        old_raw: r.raw,
        new_raw: { ...r.raw, restated: 'true' },
        window_id: started.windows[0]!.id,
      })),
    );
  });

  it('lookback: a transfer that settled is updated, its pending copy kept in record_revision, counted', async () => {
    const { sim, runtime, accountId } = file.pipeline;
    const now = sim.clock.now();
    const backfill = { account: 'demo', stream: 'transfers' as const, from: now - 3 * DAY, to: now, now };
    expect(await watched(await startBackfill(runtime, backfill))).toBeUndefined();
    const pending = await runtime.pool.query<{ tx_id: string; type: string; raw: Record<string, unknown> }>(
      `SELECT tx_id, type, raw FROM broker_transfer WHERE account_id = $1 AND status = 'pending'`,
      [accountId],
    );
    expect(pending.rows.length).toBeGreaterThan(0);

    const later = sim.clock.advance(1.5 * DAY);
    const sync = await planAndEnqueueSync(runtime, await runtime.accounts.getById(accountId), {
      stream: 'transfers',
      now: later,
    });
    expect(await watched(sync)).toBeUndefined();
    const settled = await runtime.pool.query<{ tx_id: string; type: string; raw: Record<string, unknown> }>(
      `SELECT tx_id, type, raw FROM broker_transfer WHERE account_id = $1 AND status <> 'pending'
          AND (tx_id, type) IN (SELECT * FROM unnest($2::text[], $3::text[]))`,
      [accountId, pending.rows.map((r) => r.tx_id), pending.rows.map((r) => r.type)],
    );
    expect(settled.rows.length).toBeGreaterThan(0);
    const [progress] = await windowProgress(
      runtime.pool,
      sync.windows.map((w) => w.id),
    );
    expect(progress?.revised).toBe(settled.rows.length);
    const revisions = await runtime.pool.query<{
      record_key: { tx_id: string; type: string };
      old_raw: Record<string, unknown>;
      new_raw: Record<string, unknown>;
    }>(`SELECT record_key, old_raw, new_raw FROM record_revision WHERE account_id = $1 AND stream = 'transfers'`, [
      accountId,
    ]);
    const byKey = new Map(pending.rows.map((r) => [`${r.tx_id}|${r.type}`, r.raw]));
    expect(revisions.rows.map((r) => `${r.record_key.tx_id}|${r.record_key.type}`).sort()).toEqual(
      settled.rows.map((r) => `${r.tx_id}|${r.type}`).sort(),
    );
    for (const revision of revisions.rows) {
      const key = `${revision.record_key.tx_id}|${revision.record_key.type}`;
      expect(revision.old_raw).toEqual(byKey.get(key));
      expect(revision.old_raw.status).toBe('pending');
      expect(revision.new_raw).toEqual(settled.rows.find((r) => `${r.tx_id}|${r.type}` === key)!.raw);
    }
  });
});
