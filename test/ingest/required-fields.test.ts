import { afterEach, describe, expect, it } from 'vitest';

import { startBackfill, type StartedBackfill } from '../../src/app/services/backfill.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { coveredRanges } from '../../src/ingest/coverage/window-store.ts';
import { listShapeDrift } from '../../src/ingest/shape-drift-store.ts';
import { requiredByType } from '../../src/streams/kit/columns.ts';
import { type Stream, STREAM_DEFINITIONS, STREAMS } from '../../src/streams/registry.ts';
import { usePipeline } from '../helpers/pipeline.ts';

/*
 * Issue 43, item 3: a field some report needs, absent where the record's type requires it (a trade
 * leg without its order id), refuses the page as a garbled one does: the window fails naming the
 * field, nothing of it is stored empty or covered, the refusal is counted for its alert. Every such
 * rule the streams' columns declare is tried, the exchange leaving the field out of every record.
 */

const DAY = 86_400_000;
const file = usePipeline('requiredfields', { simulatorClock: true, simulator: { scale: 'demo' } });

afterEach(() => {
  file.pipeline.sim.faults.clear();
});

const RULES = STREAMS.flatMap((stream) =>
  requiredByType(STREAM_DEFINITIONS[stream].columns).map(([field, rule]) => ({ stream, field, rule })),
);

async function settled(started: StartedBackfill): Promise<void> {
  const ids = started.windows.map((w) => w.id);
  for (const deadline = Date.now() + 120_000; ;) {
    const progress = await windowProgress(file.pipeline.runtime.pool, ids);
    if (progress.every((p) => p.done + p.failed === p.total)) return;
    if (Date.now() > deadline) throw new Error(`not settled: ${JSON.stringify(progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function storedRows(stream: Stream, from: number, to: number): Promise<number> {
  const { runtime, accountId } = file.pipeline;
  const definition = STREAM_DEFINITIONS[stream];
  const time = definition.columns[definition.paging.time]!.column;
  const result = await runtime.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${definition.table.table}
      WHERE account_id = $1 AND ${time} >= to_timestamp($2 / 1000.0) AND ${time} < to_timestamp($3 / 1000.0)`,
    [accountId, from, to],
  );
  return result.rows[0]!.n;
}

describe('a field absent where the record type requires it', () => {
  it('is declared at least for the spot order id and the futures records of a position', () => {
    expect(RULES.map(({ stream, field }) => `${stream}.${field}`)).toEqual(
      expect.arrayContaining(['spot.bizOrderId', 'futures-ledger.symbol']),
    );
  });

  it.each(RULES)(
    '$stream, $field: the window fails naming it, nothing stored, nothing covered, the refusal counted',
    async ({ stream, field, rule }) => {
      const { sim, runtime, accountId } = file.pipeline;
      const now = sim.clock.now();
      const [from, to] = [now - 60 * DAY, now - 30 * DAY];
      const definition = STREAM_DEFINITIONS[stream];
      // The exchange's truth has records of the types that need the field in the range.
      const needing = (sim.truth(stream) as Record<string, string>[]).filter((r) => {
        const at = Number(r[definition.paging.time]);
        return at >= from && at < to && rule.values.some((v) => v.toUpperCase() === r[rule.type]!.toUpperCase());
      });
      expect(needing.length).toBeGreaterThan(0);
      sim.faults.set({ omitFields: [field], paths: [definition.endpoint.path] });
      const started = await startBackfill(runtime, { account: 'demo', stream, from, to, now });
      const workers = file.pipeline.startWorkers();
      try {
        await settled(started);
      } finally {
        await workers.close();
      }
      const { rows: windows } = await runtime.pool.query<{ scope: string; status: string; last_error: string | null }>(
        `SELECT scope, status::text, last_error FROM sync_window WHERE id = ANY($1::uuid[])`,
        [started.windows.map((w) => w.id)],
      );
      const refused = windows.filter((w) => w.last_error !== null);
      expect(refused.length).toBeGreaterThan(0);
      for (const window of refused) {
        expect(window.status).toBe('failed');
        expect(window.last_error).toMatch(
          new RegExp(
            `MALFORMED_RESPONSE data(\\.list)?\\[\\d+\\]\\.${field}: ${field} is required on a ${rule.type} \\S.* record \\(${rule.because}\\), and was absent`,
          ),
        );
        expect(await coveredRanges(runtime.pool, { accountId, stream, scope: window.scope })).toEqual([]);
      }
      // Every window of the range refused its records: none stored with the field empty.
      if (refused.length === windows.length) expect(await storedRows(stream, from, to)).toBe(0);
      const counted = (await listShapeDrift(runtime.pool)).filter((row) => row.kind === 'refused');
      expect(counted.map((row) => row.field)).toContain(field);
    },
    180_000,
  );
});
