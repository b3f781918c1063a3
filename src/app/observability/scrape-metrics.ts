import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';

import { listShapeDrift, type ShapeDriftRow } from '../../ingest/shape-drift-store.ts';
import { instrumentRegistry } from '../../metrics/instruments.ts';
import type { AppRuntime } from '../app-runtime.ts';

/**
 * The queues as /metrics reads them: each one's name and job counts by state. The composition
 * root hands in its BullMQ queues (the runtime's `queues`), which are this and more.
 */
export interface CountedQueues {
  all(): { name: string; getJobCounts(...states: string[]): Promise<Record<string, number>> }[];
}

const QUEUE_STATES = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'waiting-children',
  'failed',
  'completed',
] as const;

/**
 * Everything the worker's /metrics shows. What Postgres and Redis already
 * hold is read when Prometheus scrapes (so every worker reports the same
 * figures and none is lost with a restart); the process's own counters come
 * from src/metrics/instruments.ts. Each gauge is reset before it is filled,
 * so a deleted account or an emptied state leaves no stale series.
 */
export function createMetricsRegistry(runtime: Pick<AppRuntime, 'pool'> & { queues: CountedQueues }): Registry {
  const scraped = new Registry();
  const { pool, queues } = runtime;

  new Gauge({
    name: 'ledgerline_rows_stored',
    help: 'Rows stored by the windows of each stream (sum of sync_window.rows: a window read again counts again).',
    labelNames: ['stream'] as const,
    registers: [scraped],
    async collect() {
      const result = await pool.query<{ stream: string; rows: string }>(
        `SELECT stream::text, coalesce(sum(rows), 0)::bigint AS rows FROM sync_window GROUP BY stream`,
      );
      this.reset();
      for (const row of result.rows) this.set({ stream: row.stream }, Number(row.rows));
    },
  });

  new Gauge({
    name: 'ledgerline_windows',
    help: 'Sync windows by stream and status (pending, running, done, failed).',
    labelNames: ['stream', 'status'] as const,
    registers: [scraped],
    async collect() {
      const result = await pool.query<{ stream: string; status: string; n: number }>(
        `SELECT stream::text, status::text, count(*)::int AS n FROM sync_window GROUP BY stream, status`,
      );
      this.reset();
      for (const row of result.rows) this.set({ stream: row.stream, status: row.status }, row.n);
    },
  });

  new Gauge({
    name: 'ledgerline_lost_windows',
    help: 'Windows recorded in lost_window (never finished, now wholly behind the horizon: records gone), by account and stream.',
    labelNames: ['account', 'stream'] as const,
    registers: [scraped],
    async collect() {
      const result = await pool.query<{ account: string; stream: string; n: number }>(
        `SELECT a.name AS account, l.stream::text, count(*)::int AS n
           FROM lost_window l JOIN account a ON a.id = l.account_id GROUP BY a.name, l.stream`,
      );
      this.reset();
      for (const row of result.rows) this.set({ account: row.account, stream: row.stream }, row.n);
    },
  });

  // Counted in Postgres by every process that reads answers (exchange_shape_drift), so every
  // worker reports the same totals and none is lost with a restart. One query fills both.
  let driftRows: Promise<ShapeDriftRow[]> | undefined;
  const drift = () => {
    driftRows ??= listShapeDrift(pool).finally(() => setTimeout(() => (driftRows = undefined), 1_000).unref());
    return driftRows;
  };
  new Counter({
    name: 'ledgerline_exchange_shape_drift_total',
    help: 'Records (or answers, for envelope fields) whose shape differed from the contract and were read anyway, by endpoint, field and kind (absent, unlisted, type).',
    labelNames: ['endpoint', 'field', 'kind'] as const,
    registers: [scraped],
    async collect() {
      const rows = await drift();
      this.reset();
      for (const row of rows) {
        if (row.kind !== 'refused') this.inc({ endpoint: row.endpoint, field: row.field, kind: row.kind }, row.count);
      }
    },
  });
  new Counter({
    name: 'ledgerline_exchange_answers_refused_total',
    help: 'History pages refused (a core field missing or garbled, a cursor that cycles): each failed its window. By endpoint and field.',
    labelNames: ['endpoint', 'field'] as const,
    registers: [scraped],
    async collect() {
      const rows = await drift();
      this.reset();
      for (const row of rows) {
        if (row.kind === 'refused') this.inc({ endpoint: row.endpoint, field: row.field }, row.count);
      }
    },
  });

  // One query fills both last-success gauges; each scrape asks once, whichever gauge comes first.
  let lastSuccess: Promise<{ account: string; kind: string; at: Date }[]> | undefined;
  const lastSuccesses = () => {
    lastSuccess ??= pool
      .query<{ account: string; kind: string; at: Date }>(
        `SELECT a.name AS account, r.kind::text AS kind, max(r.finished_at) AS at
           FROM run r JOIN account a ON a.id = r.account_id
          WHERE r.status = 'succeeded' AND r.kind IN ('sync', 'reconciliation')
          GROUP BY a.name, r.kind`,
      )
      .then((result) => result.rows)
      .finally(() => setTimeout(() => (lastSuccess = undefined), 1_000).unref());
    return lastSuccess;
  };
  for (const kind of ['sync', 'reconciliation'] as const) {
    new Gauge({
      name: `ledgerline_last_successful_${kind}_timestamp_seconds`,
      help: `When each account's last ${kind} succeeded (Unix time); absent: never.`,
      labelNames: ['account'] as const,
      registers: [scraped],
      async collect() {
        const rows = await lastSuccesses();
        this.reset();
        for (const row of rows) {
          if (row.kind === kind) this.set({ account: row.account }, row.at.getTime() / 1000);
        }
      },
    });
  }

  new Gauge({
    name: 'ledgerline_queue_jobs',
    help: 'BullMQ jobs per queue and state.',
    labelNames: ['queue', 'state'] as const,
    registers: [scraped],
    async collect() {
      const counts = await Promise.all(
        queues.all().map(async (queue) => ({ queue: queue.name, counts: await queue.getJobCounts(...QUEUE_STATES) })),
      );
      this.reset();
      for (const { queue, counts: byState } of counts) {
        for (const state of QUEUE_STATES) this.set({ queue, state }, byState[state] ?? 0);
      }
    },
  });

  collectDefaultMetrics({ register: scraped, prefix: 'ledgerline_' });
  return Registry.merge([instrumentRegistry, scraped]);
}
