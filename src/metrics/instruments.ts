import { Counter, Histogram, Registry } from 'prom-client';

/**
 * The process's own measurements, counted where they happen (the exchange
 * transport, the rate budget, the export worker). One registry per process,
 * not prom-client's global one, so a test or a second runtime in the same
 * process never finds a metric registered twice. What Postgres and Redis
 * already know (rows, windows, last runs, queue counts) is read at scrape
 * time instead (src/app/observability/scrape-metrics.ts).
 */
export const instrumentRegistry = new Registry();

export const exchangeRequests = new Counter({
  name: 'ledgerline_exchange_requests_total',
  help: 'Requests sent to the exchange, by endpoint and HTTP status ("network": no answer).',
  labelNames: ['endpoint', 'status'] as const,
  registers: [instrumentRegistry],
});

export const exchangeRateLimited = new Counter({
  name: 'ledgerline_exchange_rate_limited_total',
  help: 'HTTP 429 answers from the exchange, by endpoint (the rate budget should keep this at 0).',
  labelNames: ['endpoint'] as const,
  registers: [instrumentRegistry],
});

export const rateBudgetWait = new Histogram({
  name: 'ledgerline_rate_budget_wait_seconds',
  help: 'How long a request waited in place for a rate-budget slot.',
  buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [instrumentRegistry],
});

export const exportDuration = new Histogram({
  name: 'ledgerline_export_duration_seconds',
  help: 'Duration of export jobs run by this worker, by report and outcome.',
  labelNames: ['report', 'status'] as const,
  buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
  registers: [instrumentRegistry],
});

export const databaseWriteFailures = new Counter({
  name: 'ledgerline_database_write_failures_total',
  help: 'Writes the database refused because it cannot write (disk full, read-only), by SQLSTATE: alert when it rises.',
  labelNames: ['code'] as const,
  registers: [instrumentRegistry],
});
