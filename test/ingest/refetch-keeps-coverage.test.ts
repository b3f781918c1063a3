import { describe, expect, it } from 'vitest';

import { startBackfill, type StartedBackfill } from '../../src/app/services/backfill.ts';
import { gridCell } from '../../src/exchange/paging/window-planner.ts';
import { exportCoverage } from '../../src/export/export-coverage.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { coveredRanges } from '../../src/ingest/coverage/window-store.ts';
import { spotRecordEndpoint } from '../../src/streams/spot/endpoint.ts';
import { usePipeline } from '../helpers/pipeline.ts';

/*
 * Issue 34, finding 7: `--refetch` used to reset finished windows before reading them, so with the
 * exchange failing a month all of whose records were stored turned into a gap and its export was
 * refused. Coverage is replaced when the new read completes, never emptied first.
 */

const DAY = 86_400_000;
const SPOT_PATH = '/api/v2/tax/spot-record';
const file = usePipeline('refetchcoverage', { simulatorClock: true });

async function settled(started: StartedBackfill) {
  const ids = started.windows.map((w) => w.id);
  for (const deadline = Date.now() + 60_000; ;) {
    const progress = await windowProgress(file.pipeline.runtime.pool, ids);
    if (progress.every((p) => p.done + p.failed === p.total)) break;
    if (Date.now() > deadline) throw new Error(`not settled: ${JSON.stringify(progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const result = await file.pipeline.runtime.pool.query<{ status: string; last_error: string | null }>(
    `SELECT status::text, last_error FROM sync_window WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  return result.rows;
}

async function stored(from: number, to: number): Promise<number> {
  const { runtime, accountId } = file.pipeline;
  const result = await runtime.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM spot_record
      WHERE account_id = $1 AND ts >= to_timestamp($2 / 1000.0) AND ts < to_timestamp($3 / 1000.0)`,
    [accountId, from, to],
  );
  return result.rows[0]!.n;
}

describe('--refetch', () => {
  it('keeps a finished month covered while the exchange fails: its export is not refused; a completed re-read replaces it', async () => {
    const { sim, runtime, accountId } = file.pipeline;
    const now = sim.clock.now();
    const { start: from, end: to } = gridCell(spotRecordEndpoint, now - 200 * DAY);
    const backfill = (refetch: boolean) =>
      startBackfill(runtime, { account: 'demo', stream: 'spot', from, to, now, refetch });
    const month = { start: new Date(from), end: new Date(to) };

    expect((await settled(await backfill(false))).map((w) => w.status)).toEqual(['done']);
    const rows = await stored(from, to);
    expect(rows).toBeGreaterThan(0);
    expect(await coveredRanges(runtime.pool, { accountId, stream: 'spot', scope: '' })).toEqual([
      { start: from, end: to },
    ]);

    // The exchange now fails every spot answer (a 00000 without its list: final at once).
    sim.faults.set({ page: 'nullData', paths: [SPOT_PATH] });
    try {
      const failed = await settled(await backfill(true));
      expect(failed.map((w) => w.status)).toEqual(['failed']);
      expect(failed[0]!.last_error).toMatch(/MALFORMED_RESPONSE data: a list is required/);
    } finally {
      sim.faults.clear();
    }
    expect(await stored(from, to)).toBe(rows);
    expect(await coveredRanges(runtime.pool, { accountId, stream: 'spot', scope: '' })).toEqual([
      { start: from, end: to },
    ]);
    const coverage = await exportCoverage(file.db.url, accountId, month, ['spot']);
    expect(coverage.complete).toBe(true);

    // The exchange answers again: the re-read completes and the month is covered by it.
    expect((await settled(await backfill(true))).map((w) => w.status)).toEqual(['done']);
    expect(await stored(from, to)).toBe(rows);
    expect((await exportCoverage(file.db.url, accountId, month, ['spot'])).complete).toBe(true);
  });
});
