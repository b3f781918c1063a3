import { describe, expect, it } from 'vitest';

import { refreshTradePrices } from '../../src/accounting/prices/refresh-trade-prices.ts';
import { startBackfill } from '../../src/app/services/backfill.ts';
import { usePipeline } from '../helpers/pipeline.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 9, 15);

// A demo-scale year (11,000 spot records, orders whose fills lie days apart), synced in two parts.
const file = usePipeline('tradepricesinc', { simulatorClock: true, simulator: { scale: 'demo', now: NOW } });

async function backfill(from: number, to: number, refetch = false): Promise<void> {
  const { runtime } = file.pipeline;
  const started = await startBackfill(runtime, { account: 'demo', stream: 'spot', from, to, now: NOW, refetch });
  const ids = started.windows.map((w) => w.id);
  for (;;) {
    const { rows } = await runtime.pool.query<{ open: number }>(
      `SELECT count(*) FILTER (WHERE status <> 'done')::int AS open FROM sync_window WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    if (rows[0]!.open === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function points(): Promise<string[]> {
  const { rows } = await file.pipeline.runtime.pool.query<{ p: string }>(
    `SELECT time::text || ' ' || base || '/' || quote || ' ' || price::text AS p
       FROM price WHERE account_id = $1 AND source = 'trade' ORDER BY time, base, quote`,
    [file.pipeline.accountId],
  );
  return rows.map((r) => r.p);
}

async function refresh(full = false) {
  const client = await file.pipeline.runtime.pool.connect();
  try {
    return await refreshTradePrices(client, file.pipeline.accountId, { full });
  } finally {
    client.release();
  }
}

describe('the incremental trade price refresh', () => {
  it('leaves exactly the points a full refresh gives, after new windows and after late legs arrive', async () => {
    const { runtime, accountId } = file.pipeline;
    await backfill(NOW - 365 * DAY, NOW - 120 * DAY);
    // Legs that arrive late: some orders' later fills are missing from the store at the first refresh.
    const late = await runtime.pool.query<{ record_id: string }>(
      `DELETE FROM spot_record WHERE account_id = $1 AND record_id IN (
         SELECT record_id FROM spot_record
          WHERE account_id = $1 AND biz_order_id <> '' AND ts < $2
          ORDER BY ts DESC LIMIT 40)
       RETURNING record_id`,
      [accountId, new Date(NOW - 200 * DAY)],
    );
    expect(late.rows).toHaveLength(40);
    const first = await refresh();
    expect(first.inserted).toBeGreaterThan(100);

    // The rest of the year: an incremental refresh, touching only the new windows' orders.
    await backfill(NOW - 120 * DAY, NOW);
    const incremental = await refresh();
    expect(incremental.inserted).toBeGreaterThan(50);
    expect(incremental.unchanged).toBeLessThan(first.inserted);
    const afterNew = await points();
    expect(await refresh(true)).toMatchObject({ inserted: 0, updated: 0, removed: 0 });
    expect(await points()).toEqual(afterNew);

    // The late legs arrive: their window is read again; the incremental refresh re-pairs those orders.
    await backfill(NOW - 365 * DAY, NOW - 120 * DAY, true);
    const count = await runtime.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM spot_record WHERE account_id = $1 AND record_id = ANY($2)`,
      [accountId, late.rows.map((r) => r.record_id)],
    );
    expect(count.rows[0]!.n).toBe(40);
    const again = await refresh();
    expect(again.inserted + again.updated + again.removed).toBeGreaterThan(0);
    const afterLate = await points();
    expect(await refresh(true)).toMatchObject({ inserted: 0, updated: 0, removed: 0 });
    expect(await points()).toEqual(afterLate);
    // Nothing changed since: nothing to write.
    expect(await refresh()).toMatchObject({ inserted: 0, updated: 0, removed: 0 });
  }, 120_000);
});
