import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type MetricsServer, startMetricsServer } from '../../src/app/observability/start-metrics-server.ts';
import { startBackfill } from '../../src/app/services/backfill.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { logger } from '../../src/logging/logger.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const DAY = 86_400_000;
const db = useTestDatabase('metricsbackfill');
let pipeline: Pipeline;
let metrics: MetricsServer;

beforeAll(async () => {
  // Limits scaled less than usual: the backfill takes a few seconds, long enough to watch it move.
  pipeline = await startPipeline({ databaseUrl: db.url, rateFactor: 10 });
  pipeline.startWorkers();
  metrics = await startMetricsServer(pipeline.runtime, { host: '127.0.0.1', port: 0 }, logger('metrics'));
});
afterAll(async () => {
  await metrics?.close();
  await pipeline?.close();
});

/** The value of one series of a Prometheus text page, 0 when absent. */
function sample(page: string, series: string): number {
  const line = page.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('/metrics during a backfill', () => {
  it('shows rows stored and windows done rising while the backfill runs, and the requests it sent', async () => {
    const { runtime, sim } = pipeline;
    const now = sim.clock.now();
    const started = await startBackfill(runtime, {
      account: 'demo',
      stream: 'spot',
      from: now - 400 * DAY,
      to: now,
      now,
    });
    const ids = started.windows.map((w) => w.id);
    const seen: { rows: number; done: number; pending: number }[] = [];
    for (;;) {
      const page = await (await fetch(`${metrics.url}/metrics`)).text();
      seen.push({
        rows: sample(page, 'ledgerline_rows_stored{stream="spot"}'),
        done: sample(page, 'ledgerline_windows{stream="spot",status="done"}'),
        pending: sample(page, 'ledgerline_windows{stream="spot",status="pending"}'),
      });
      const progress = await windowProgress(runtime.pool, ids);
      if (progress.some((p) => p.failed > 0)) throw new Error(`failed windows: ${JSON.stringify(progress)}`);
      if (progress.every((p) => p.done === p.total)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const page = await (await fetch(`${metrics.url}/metrics`)).text();
    const last = {
      rows: sample(page, 'ledgerline_rows_stored{stream="spot"}'),
      done: sample(page, 'ledgerline_windows{stream="spot",status="done"}'),
    };
    // Moving: more than one distinct value was seen on the way, never going down.
    expect(new Set(seen.map((s) => s.done)).size).toBeGreaterThan(1);
    expect(new Set(seen.map((s) => s.rows)).size).toBeGreaterThan(1);
    for (let i = 1; i < seen.length; i += 1) {
      expect(seen[i]!.rows).toBeGreaterThanOrEqual(seen[i - 1]!.rows);
      expect(seen[i]!.done).toBeGreaterThanOrEqual(seen[i - 1]!.done);
    }
    expect(seen[0]!.pending + seen[0]!.done).toBeGreaterThan(0);
    // At the end it equals the stored truth.
    const stored = await runtime.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM spot_record');
    expect(last.rows).toBe(stored.rows[0]!.n);
    expect(last.done).toBe(ids.length);
    expect(sample(page, 'ledgerline_exchange_requests_total{endpoint="spotRecord",status="200"}')).toBeGreaterThan(0);
    expect(page).toMatch(/^ledgerline_rate_budget_wait_seconds_count \d+$/m);
    expect(page).toContain('# TYPE ledgerline_exchange_rate_limited_total counter');
  });
});
